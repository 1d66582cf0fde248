/**
 * A read-only Tapedeck home (issue #11 item 7), over the spawned binary: one sentence, "the
 * Tapedeck home PATH is read-only", never a SqliteError stack trace. Reading commands still work
 * from the logs; commands that must write exit 1 with the sentence.
 *
 * How the home is made read-only (`readOnlyDir`): as root (CI), permission bits stop nothing, so
 * the home is bind-mounted onto itself and remounted `ro`; as another user, `chmod -R a-w`.
 */
import * as acp from "@agentclientprotocol/sdk";
import { readOnlyDir, spawnAcp } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home with one session (and its index), then made read-only. */
async function readOnlyHome() {
  // Its server and workspace go when the test finishes, after the afterEach that restores the home.
  const context = await hostileModel([{ text: "the answer is forty-two" }]);
  const first = await context.cli(["run", "what is the answer"]);
  expect(first.code).toBe(0);
  const indexed = await context.cli(["index"]);
  expect(indexed.code).toBe(0);
  const listed = await context.cli(["sessions", "list"]);
  const sessionId = /^([0-9a-f-]{36})/.exec(listed.stdout)?.[1] ?? "";
  expect(sessionId).not.toBe("");
  const readOnly = readOnlyDir(context.workspace.home);
  cleanups.push(() => readOnly.restore());
  const sentence = `the Tapedeck home ${context.workspace.home} is read-only`;
  return { ...context, sessionId, sentence };
}

describe("a read-only home", () => {
  it("reading commands work from the logs and say it once; writing ones exit 1 with the sentence", async () => {
    const { cli, sessionId, sentence } = await readOnlyHome();
    const note = `tapedeck: ${sentence}; reading the logs directly, without the search index.\n`;

    const reads: [string[], RegExp][] = [
      [["sessions", "list"], new RegExp(`^${sessionId} .* what is the answer\\n$`)],
      [["sessions", "search", "forty-two"], new RegExp(`^${sessionId} #\\d+ message: .*forty`)],
      [["sessions", "show", sessionId], /> what is the answer\n(.|\n)*the answer is forty-two/],
      [["sessions", "trace", sessionId, "3"], /^#3 user: what is the answer/],
      [["sessions", "verify", "--all"], new RegExp(`^ok {7}${sessionId}\\n$`)],
      [["sessions", "export", sessionId], /^\{"type":"session"/],
    ];
    for (const [args, stdout] of reads) {
      const result = await cli(args);
      expect({ args, code: result.code }).toEqual({ args, code: 0 });
      expect(result.stdout).toMatch(stdout);
      // At most the one note; never a stack trace.
      expect(result.stderr.replace(note, "")).not.toMatch(/read-only|Sqlite|Error| {4}at /);
    }

    for (const args of [["run", "again"], ["index"], ["import", "codex", "/nonexistent"]]) {
      const result = await cli(args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 1,
        stderr: `tapedeck: ${sentence}\n`,
      });
    }
  });

  it("ACP session/new and session/prompt fail with the sentence", async () => {
    const { workspace, env, sessionId, sentence } = await readOnlyHome();
    const agent = spawnAcp(env, workspace.cwd);
    cleanups.push(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    await expect(
      agent.agent.request(acp.methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [] }),
    ).rejects.toMatchObject({ message: sentence });
    await agent.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace.cwd,
      mcpServers: [],
    });
    await expect(
      agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "again" }],
      }),
    ).rejects.toMatchObject({ message: sentence });
    expect(agent.stderr()).not.toMatch(/SqliteError| {4}at /);
  });
});
