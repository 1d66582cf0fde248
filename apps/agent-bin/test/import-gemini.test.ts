/**
 * `tapedeck import gemini` over the built binary: Gemini CLI's saved chats under
 * `~/.gemini/tmp/<project hash>/chats/`, imported, searchable, and appended to (not forked) when
 * Gemini CLI rewrites the chat with more messages. The chat is the hand-made fixture in
 * `packages/importers/__fixtures__/made` (no public transcript with a citable licence was found).
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
  it("imports saved chats from the default folder, then appends what a rewritten chat added", async () => {
    const { workspace, cli } = await cliContext();
    // HOME is the workspace root (see binaryEnv).
    const tmp = path.join(workspace.root, ".gemini", "tmp");
    cpSync(fixture, tmp, { recursive: true });
    const file = path.join(tmp, "3f9a1c", "chats", "session-2025-11-20T09-00-b2c4d6e8.json");
    const whole = JSON.parse(readFileSync(file, "utf8")) as { messages: unknown[] };
    writeFileSync(file, JSON.stringify({ ...whole, messages: whole.messages.slice(0, 3) }));
    const first = await cli(["import", "gemini"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("sessions: 1 created, 0 appended, 0 forked, 0 unchanged");
    writeFileSync(file, JSON.stringify(whole));
    const second = await cli(["import", "gemini"]);
    expect(second.stdout).toContain("sessions: 0 created, 1 appended, 0 forked, 0 unchanged");
    const search = await cli(["sessions", "search", "--all", "keeper"]);
    expect(search.stdout).toContain("lighthouse");
  });
});
