/**
 * `tapedeck import` of a session the other tool is still writing, over the built binary: a
 * person imports while Claude Code runs (the transcript ends on the reply's text, its tool call
 * not written yet), then again once it has finished. The second import appends to the session
 * the first wrote; it never makes a second copy.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cliContext } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const samples = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples", import.meta.url),
);

describe("tapedeck import of a source that grew", () => {
  it("appends what a running Claude Code session wrote since the last import, one session in the list", async () => {
    const { workspace, cli } = await cliContext();
    const dir = path.join(workspace.root, "claude");
    cpSync(path.join(samples, "claude-code"), dir, { recursive: true });
    const project = path.join(dir, "-home-marco-projects-spotter");
    const file = path.join(project, readdirSync(project)[0]!);
    const whole = readFileSync(file, "utf8");
    const lines = whole.split(/(?<=\n)/u);
    // Seven lines: the prompt and the reply's text; the Bash call that follows is not written yet.
    writeFileSync(file, lines.slice(0, 7).join(""));
    const first = await cli(["import", "claude-code", dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("sessions: 1 created, 0 appended, 0 forked, 0 unchanged");
    writeFileSync(file, whole);
    const second = await cli(["import", "claude-code", dir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("sessions: 0 created, 1 appended, 0 forked, 0 unchanged");
    const list = await cli(["sessions", "list", "--all", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  });
});
