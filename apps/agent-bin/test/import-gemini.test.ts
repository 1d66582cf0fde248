/**
 * `tapedeck import gemini` over the built binary: Gemini CLI's saved chats under
 * `~/.gemini/tmp/<project hash>/chats/` and its `/chat save` checkpoints
 * (`<project hash>/checkpoint-<tag>.json`), imported, searchable, and appended to (not forked)
 * when Gemini CLI rewrites the chat with more messages or the checkpoint is saved again under its
 * tag. Both are hand-made fixtures in `packages/importers/__fixtures__/made` (no public
 * transcript with a citable licence was found).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cliContext } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const fixture = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/made/gemini", import.meta.url),
);

describe("tapedeck import gemini", () => {
  it("imports saved chats and checkpoints from the default folder, then appends what a rewritten one added", async () => {
    const { workspace, cli } = await cliContext();
    // HOME is the workspace root (see binaryEnv).
    const tmp = path.join(workspace.root, ".gemini", "tmp");
    cpSync(fixture, tmp, { recursive: true });
    const file = path.join(tmp, "3f9a1c", "chats", "session-2025-11-20T09-00-b2c4d6e8.json");
    const whole = JSON.parse(readFileSync(file, "utf8")) as { messages: unknown[] };
    writeFileSync(file, JSON.stringify({ ...whole, messages: whole.messages.slice(0, 3) }));
    const checkpoint = path.join(tmp, "3f9a1c", "checkpoint-coast%20typo.json");
    const saved = JSON.parse(readFileSync(checkpoint, "utf8")) as { history: unknown[] };
    // `/chat save "coast typo"` early on; saved again under the same tag at the end (in place).
    writeFileSync(checkpoint, JSON.stringify({ ...saved, history: saved.history.slice(0, 6) }));
    const first = await cli(["import", "gemini"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("sessions: 2 created, 0 appended, 0 forked, 0 unchanged");
    writeFileSync(file, JSON.stringify(whole));
    writeFileSync(checkpoint, JSON.stringify(saved));
    const second = await cli(["import", "gemini"]);
    expect(second.stdout).toContain("sessions: 0 created, 2 appended, 0 forked, 0 unchanged");
    const search = await cli(["sessions", "search", "--all", "keeper"]);
    expect(search.stdout).toContain("lighthouse");
    const typo = await cli(["sessions", "search", "--all", "teh"]);
    expect(typo.stdout).toContain("[teh]");
  });
});
