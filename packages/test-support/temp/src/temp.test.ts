import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import setup, {
  leftovers,
  leftoversMessage,
  removeStaleRunDirs,
  TMP_GUARD_ENV,
} from "./global-setup";
import { tempWorkspace } from "./temp-workspace";
import { testTempDir, testWorkspace } from "./test-temp";

describe("tempWorkspace", () => {
  it("makes an empty workspace beside a home that does not exist yet, and removes both", async () => {
    const workspace = await tempWorkspace();
    expect(existsSync(workspace.cwd)).toBe(true);
    expect(existsSync(workspace.home)).toBe(false);
    expect(path.dirname(workspace.home)).toBe(workspace.root);
    await workspace.cleanup();
    expect(existsSync(workspace.root)).toBe(false);
  });
});

describe("testTempDir and testWorkspace", () => {
  const made: string[] = [];
  let fromHook = "";
  beforeEach(() => {
    fromHook = testTempDir("tapedeck-temp-hook-");
  });

  it("make folders under the OS temp directory (one in a beforeEach)", async () => {
    made.push(fromHook, testTempDir(), (await testWorkspace()).root);
    for (const dir of made) expect(existsSync(dir)).toBe(true);
    expect(path.dirname(made[1]!)).toBe(os.tmpdir());
  });

  it("removed them when the test that made them finished", () => {
    expect(made).toHaveLength(3);
    for (const dir of made) expect(existsSync(dir)).toBe(false);
  });
});

describe("the temp-folder guard", () => {
  it("gives the run its own TMPDIR and passes when the run left it empty", () => {
    const before = process.env.TMPDIR;
    const teardown = setup();
    const runDir = os.tmpdir();
    expect(path.basename(runDir)).toMatch(new RegExp(`^tapedeck-test-run-${process.pid}-`));
    mkdirSync(path.join(runDir, "removed-by-its-test"));
    rmSync(path.join(runDir, "removed-by-its-test"), { recursive: true });
    expect(teardown).toBeTypeOf("function");
    expect(() => teardown?.()).not.toThrow();
    expect(process.env.TMPDIR).toBe(before);
    expect(existsSync(runDir)).toBe(false);
  });

  it("fails the run naming what was left, and removes it", () => {
    const teardown = setup();
    const runDir = os.tmpdir();
    mkdirSync(path.join(runDir, "tapedeck-import-abc"));
    writeFileSync(path.join(runDir, "stray.txt"), "x");
    const exitCode = process.exitCode;
    try {
      expect(() => teardown?.()).toThrow(
        "The tests left 2 temp entries behind: stray.txt, tapedeck-import-abc.",
      );
      expect(process.exitCode).toBe(1);
    } finally {
      process.exitCode = exitCode;
    }
    expect(existsSync(runDir)).toBe(false);
  });

  it("removes the run folders of runs whose process is gone, and only those", () => {
    const root = testTempDir();
    const dead = spawnSync("true").pid ?? 0;
    for (const name of [
      `tapedeck-test-run-${dead}-abc`,
      `tapedeck-test-run-${process.pid}-def`,
      "tapedeck-test-run-xyz",
    ]) {
      mkdirSync(path.join(root, name, "leftover"), { recursive: true });
    }
    expect(removeStaleRunDirs(root)).toEqual([`tapedeck-test-run-${dead}-abc`]);
    expect(readdirSync(root).sort()).toEqual([
      `tapedeck-test-run-${process.pid}-def`,
      "tapedeck-test-run-xyz",
    ]);
  });

  it("stays out of the way when turned off", () => {
    process.env[TMP_GUARD_ENV] = "off";
    try {
      expect(setup()).toBeUndefined();
    } finally {
      delete process.env[TMP_GUARD_ENV];
    }
  });

  it("does not count a tool's own cache (tsx-<uid>) as left behind", () => {
    expect(leftovers(["tsx-0", "tsx-1000", "tsx-cache-x", "tapedeck-web-1"])).toEqual([
      "tsx-cache-x",
      "tapedeck-web-1",
    ]);
  });

  it("names at most 20 entries and counts the rest", () => {
    const entries = Array.from({ length: 23 }, (_, index) => `d${String(index).padStart(2, "0")}`);
    expect(leftoversMessage(entries)).toContain("d19, and 3 more.");
    expect(leftoversMessage([])).toBeUndefined();
  });
});
