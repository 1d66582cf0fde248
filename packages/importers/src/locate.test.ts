import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { convertInto, reportOf } from "./import-file";
import { defaultLocations, findUnits } from "./locate";

describe("defaultLocations", () => {
  it("names each tool's folder under HOME, or under the tool's own variable", () => {
    const home = { HOME: "/h" };
    expect(defaultLocations("claude-code", home)).toEqual(["/h/.claude/projects"]);
    expect(defaultLocations("codex", home)).toEqual(["/h/.codex/sessions"]);
    expect(defaultLocations("pi", home)).toEqual(["/h/.pi/agent/sessions"]);
    expect(defaultLocations("opencode", home)).toEqual(["/h/.local/share/opencode"]);
    expect(defaultLocations("tapedeck", home)).toEqual([]);
    const own = {
      HOME: "/h",
      CLAUDE_CONFIG_DIR: "/c",
      CODEX_HOME: "/x",
      PI_CODING_AGENT_DIR: "/p",
      XDG_DATA_HOME: "/d",
    };
    expect(defaultLocations("claude-code", own)).toEqual(["/c/projects"]);
    expect(defaultLocations("codex", own)).toEqual(["/x/sessions"]);
    expect(defaultLocations("pi", own)).toEqual(["/p/sessions"]);
    expect(defaultLocations("opencode", own)).toEqual(["/d/opencode"]);
    // An empty variable is unset.
    expect(defaultLocations("claude-code", { HOME: "/h", CLAUDE_CONFIG_DIR: "" })).toEqual([
      "/h/.claude/projects",
    ]);
  });
});

describe("findUnits", () => {
  it("lists each file once through a folder that links back to its parent or to a sibling", () => {
    const root = testTempDir("import-locate-");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    writeFileSync(join(root, "a", "one.jsonl"), "{}\n");
    writeFileSync(join(root, "a", "b", "two.jsonl"), "{}\n");
    symlinkSync("..", join(root, "a", "b", "loop"));
    symlinkSync(join(root, "a", "b"), join(root, "again"));
    // A folder given twice (once inside another given one) is read once too.
    const units = findUnits("pi", [root, join(root, "a", "b")]);
    expect(units.map((unit) => unit.path)).toEqual([
      join(root, "a", "b", "two.jsonl"),
      join(root, "a", "one.jsonl"),
    ]);
  });

  it("reports an entry of a folder it cannot read instead of leaving it out silently", () => {
    const root = testTempDir("import-locate-");
    writeFileSync(join(root, "ok.jsonl"), "{}\n");
    symlinkSync(join(root, "gone.jsonl"), join(root, "dangling.jsonl"));
    symlinkSync("self", join(root, "self"));
    const units = findUnits("pi", [root]);
    const errors = units.map((unit) => {
      const report = reportOf(unit);
      convertInto(unit, report);
      return [unit.path, report.error];
    });
    expect(errors).toEqual([
      [join(root, "dangling.jsonl"), "no such file or directory"],
      [join(root, "ok.jsonl"), undefined],
      [join(root, "self"), expect.stringContaining("ELOOP")],
    ]);
  });

  it("reports a FIFO named like a source file, walked or given, instead of blocking on it", () => {
    const root = testTempDir("import-locate-");
    execFileSync("mkfifo", [join(root, "pipe.jsonl")]);
    const walked = findUnits("pi", [root]);
    const given = findUnits("pi", [join(root, "pipe.jsonl")]);
    for (const units of [walked, given]) {
      expect(units.map((unit) => unit.path)).toEqual([join(root, "pipe.jsonl")]);
      // Not a unit to read: only its error is reported.
      const report = reportOf(units[0]!);
      expect(convertInto(units[0]!, report)).toBeUndefined();
      expect(report.error).toBe("not a regular file (a FIFO, socket or device)");
    }
  });

  it("leaves require resolving pnpm's links after it met a FIFO (opencode's database loads better-sqlite3 next)", () => {
    // Node's realpathSync reads the last plain stat's file type from a buffer it shares with
    // fs.statSync: after a FIFO's it stopped resolving links ("Cannot find module 'bindings'").
    const root = testTempDir("import-locate-");
    // A known start: the test before left the buffer as its FIFO's (its folder's removal).
    statSync(root);
    const require = createRequire(import.meta.url);
    const linked = require.resolve("better-sqlite3/package.json");
    execFileSync("mkfifo", [join(root, "pipe.jsonl")]);
    findUnits("pi", [root]);
    findUnits("pi", [join(root, "pipe.jsonl")]);
    expect(require.resolve("better-sqlite3")).toBe(
      realpathSync(join(linked, "..", "lib", "index.js")),
    );
  });
});
