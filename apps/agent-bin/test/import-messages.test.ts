/**
 * `tapedeck import` over the built binary: where it looks (each tool's default folder under
 * HOME), what it shows while it runs (a progress line on a terminal), and how it reports what it
 * could not read (damaged lines, another tool's file, missing and unreadable paths, a folder that
 * links back to itself) with the exit code: 0 with a warning, 1 when nothing could be read, 2
 * for a usage error.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cliContext } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const samples = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples", import.meta.url),
);

describe("tapedeck import: paths, damage, messages", () => {
  it("exits 1 when nothing could be read, 2 for an unknown source", async () => {
    const { workspace, cli } = await cliContext();
    const wrong = await cli([
      "import",
      "codex",
      path.join(samples, "opencode", "ses_18684d584ffe1JuGPUt8v6Igr8.json"),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("nothing could be read");
    // Another tool's transcript is refused whole, in one record that names no line.
    const pi = await cli(["import", "codex", path.join(samples, "pi")]);
    expect(pi.code).toBe(1);
    expect(pi.stdout).toContain("1 skipped\n  skipped: not a Codex rollout file\n");
    const none = await cli(["import", "pi", path.join(workspace.root, "missing")]);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("not read: no such file or directory");
    expect((await cli(["import", "cursor"])).code).toBe(2);
  });

  it("reads a folder that links back to itself once, and names what it could not read", async () => {
    const { workspace, cli } = await cliContext();
    const dir = path.join(workspace.root, "pi");
    cpSync(path.join(samples, "pi"), dir, { recursive: true });
    const [folder] = readdirSync(dir);
    symlinkSync("..", path.join(dir, folder!, "loop"));
    symlinkSync(path.join(dir, "gone.jsonl"), path.join(dir, "dangling.jsonl"));
    const result = await cli(["import", "pi", dir, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { files: { path: string; error?: string }[] };
    expect(summary.files.map((file) => [path.relative(dir, file.path), file.error])).toEqual([
      [path.join(folder!, readdirSync(path.join(dir, folder!))[0]!), undefined],
      ["dangling.jsonl", "no such file or directory"],
    ]);
    expect(result.stderr).toContain(
      "tapedeck: warning: 1 file(s) or folder(s) not read (listed above); everything else was imported",
    );
  });

  it("skips a 50 MB line (a base64 image) with its line number and imports the rest, exit 0", async () => {
    const { workspace, cli } = await cliContext();
    const dir = path.join(workspace.root, "claude", "-p");
    mkdirSync(dir, { recursive: true });
    const sample = path.join(samples, "claude-code", "-home-marco-projects-spotter");
    const [name] = readdirSync(sample);
    const lines = readFileSync(path.join(sample, name!), "utf8").split("\n");
    const image = JSON.stringify({
      type: "user",
      message: { role: "user", content: [{ type: "image", source: { data: "A".repeat(50e6) } }] },
    });
    writeFileSync(
      path.join(dir, name!),
      [...lines.slice(0, 4), image, ...lines.slice(4)].join("\n"),
    );
    const result = await cli(["import", "claude-code", path.join(workspace.root, "claude")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`skipped line 5: line too long (${image.length} bytes)`);
    expect(result.stdout).toContain("1 session(s), 15 entries read, 1 skipped");
    expect(result.stdout).toContain("1 created");
    expect(result.stderr).toContain("warning: 1 line(s) skipped in 1 file(s)");
  });

  it("prints a source's paths and ids with hidden characters escaped", async () => {
    const { workspace, cli } = await cliContext();
    const dir = path.join(workspace.root, "claude", "-p");
    mkdirSync(dir, { recursive: true });
    const entry = {
      type: "user",
      uuid: "u1",
      parentUuid: null,
      sessionId: "evil\u001b]0;owned\u0007",
      timestamp: "2026-01-02T10:00:00.000Z",
      // An absolute directory of its own: a session naming none (or `/`) is not imported.
      cwd: workspace.cwd,
      message: { role: "user", content: "hello" },
    };
    writeFileSync(path.join(dir, "red\u001b[31m.jsonl"), `${JSON.stringify(entry)}\ngarbage\n`);
    const result = await cli(["import", "claude-code", path.join(workspace.root, "claude")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("\u001b");
    expect(result.stdout).not.toContain("\u0007");
    expect(result.stdout).toContain("red\\e[31m.jsonl: 1 session(s)");
    expect(result.stdout).toContain("from evil\\e]0;owned\\x07");
  });

  it("prints a path or id holding a newline on its own line, escaped (it could forge a line)", async () => {
    const { workspace, cli } = await cliContext();
    const dir = path.join(workspace.root, "claude", "-p");
    mkdirSync(dir, { recursive: true });
    const forged = "Imported claude-code: 0 file(s)";
    const entry = {
      type: "user",
      uuid: "u1",
      parentUuid: null,
      sessionId: `id\n${forged}`,
      timestamp: "2026-01-02T10:00:00.000Z",
      // An absolute directory of its own: a session naming none (or `/`) is not imported.
      cwd: workspace.cwd,
      message: { role: "user", content: "hello" },
    };
    writeFileSync(path.join(dir, `a\n${forged}.jsonl`), `${JSON.stringify(entry)}\n`);
    const result = await cli(["import", "claude-code", path.join(workspace.root, "claude")]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.filter((line) => line.startsWith(forged))).toEqual([]);
    expect(lines.filter((line) => line.startsWith("Imported claude-code: 1 file(s)"))).toHaveLength(
      1,
    );
    expect(result.stdout).toContain(`a\\n${forged}.jsonl: 1 session(s)`);
    expect(result.stdout).toContain(`from id\\n${forged}`);
  });

  it("reads every tool's default folder under HOME and shows progress on a terminal", async () => {
    const { workspace, cli } = await cliContext();
    // HOME is the workspace root (see binaryEnv).
    const homes: Record<string, string> = {
      "claude-code": path.join(".claude", "projects"),
      codex: path.join(".codex", "sessions"),
      pi: path.join(".pi", "agent", "sessions"),
    };
    for (const [source, folder] of Object.entries(homes)) {
      cpSync(path.join(samples, source), path.join(workspace.root, folder), { recursive: true });
      const result = await cli(["import", source], undefined, { terminal: { answer: "n" } });
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toContain(path.join(workspace.root, folder));
      expect(result.stdout).toContain("1 created");
      expect(result.stdout).toMatch(/\rimporting: 1\/1 files, \d+\.\d of \d+\.\d MB\r?\n/);
    }
  });
});
