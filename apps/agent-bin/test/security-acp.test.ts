import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { homeLogs, spawnAcp } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started() {
  const model = await hostileModel([{ text: "should never be asked" }]);
  const agent = spawnAcp(model.env, model.workspace.cwd);
  cleanups.push(() => agent.close());
  await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  return { model, agent };
}

describe("ACP requests refused up front (issue #11 item 10)", () => {
  it("session/load with a cwd that does not exist is refused like session/new", async () => {
    const { model, agent } = await started();
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: model.workspace.cwd,
      mcpServers: [],
    });
    const missing = path.join(model.workspace.root, "gone");
    await expect(
      agent.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: missing,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining("Invalid params") });
    await expect(
      agent.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: missing,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({
      data: expect.objectContaining({ cwd: missing }),
    });
  });

  it("an empty prompt runs no model turn and writes nothing", async () => {
    const { model, agent } = await started();
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: model.workspace.cwd,
      mcpServers: [],
    });
    const logs = homeLogs(model.workspace.home);
    const before = await logs.text(sessionId);
    for (const prompt of [[], [{ type: "text" as const, text: "  \n " }]]) {
      await expect(
        agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt }),
      ).rejects.toMatchObject({ message: expect.stringContaining("Invalid params") });
    }
    expect(model.server.requests()).toEqual([]);
    expect(await logs.text(sessionId)).toBe(before);
    expect(await logs.sessionIds()).toEqual([sessionId]);
  });
});
