/**
 * A `/compact` whose summary call returns no text (issue #28 item 5), over the real binary: the
 * CLI and the ACP agent both fail with one sentence, and no compaction is written.
 */
import * as acp from "@agentclientprotocol/sdk";
import { homeLogs, spawnAcp } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

const SENTENCE = "The model returned an empty summary, so nothing was compacted.";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The log's events after its first `count` lines, by type (header excluded). */
async function typesAfter(home: string, sessionId: string, count: number) {
  const lines = await homeLogs(home).lines(sessionId);
  return lines.slice(count).map((line) => line.type);
}

describe("/compact with an empty summary (issue #28)", () => {
  it("CLI: exits 1 with one sentence and writes no compaction", async () => {
    const model = await hostileModel([{ text: "A1" }, { text: "A2" }, {}]);
    expect((await model.cli(["run", "one"])).code).toBe(0);
    expect((await model.cli(["run", "-c", "two"])).code).toBe(0);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const before = (await homeLogs(model.workspace.home).lines(sessionId)).length;
    const result = await model.cli(["run", "-c", "/compact"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(SENTENCE);
    const types = await typesAfter(model.workspace.home, sessionId, before);
    expect(types).not.toContain("compaction");
    expect((await homeLogs(model.workspace.home).lines(sessionId)).at(-1)).toMatchObject({
      type: "turn/end",
      status: "failed",
      error: { code: "EMPTY_SUMMARY", message: SENTENCE },
    });
  });

  it("ACP: the /compact prompt is answered with an error naming the empty summary", async () => {
    const model = await hostileModel([{ text: "A1" }, { text: "A2" }, {}]);
    const agent = spawnAcp(model.env, model.workspace.cwd);
    cleanups.push(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: model.workspace.cwd,
      mcpServers: [],
    });
    for (const text of ["one", "two"]) {
      await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });
    }
    const before = (await homeLogs(model.workspace.home).lines(sessionId)).length;
    await expect(
      agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "/compact" }],
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining(SENTENCE) });
    expect(await typesAfter(model.workspace.home, sessionId, before)).not.toContain("compaction");
  });
});
