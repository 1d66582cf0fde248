/**
 * ACP `session/fork` over the real binary (issue #28 items 3 and 4): a fork in a new connection
 * answers with its parent's mode and model and runs its first prompt in them, and that first run
 * is named after the fork, as every new session's first run is.
 */
import * as acp from "@agentclientprotocol/sdk";
import * as unstable from "@agentclientprotocol/sdk/unstable";
import { startScriptedServer } from "@tapedeck/llm-replay";
import { binaryEnv, homeLogs, spawnAcp, tempWorkspace } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(env: Record<string, string>, cwd: string) {
  const agent = spawnAcp(env, cwd);
  cleanups.push(() => agent.close());
  await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  return agent;
}

async function setup() {
  const workspace = await tempWorkspace();
  const server = await startScriptedServer([{ text: "A" }, { text: "B" }], {
    models: ["scripted", "srv-model-b"],
  });
  onTestFinished(async () => {
    await server.close();
    await workspace.cleanup();
  });
  const env = binaryEnv(workspace, { baseUrl: server.url, model: "openai-chat:scripted" });
  return { workspace, server, env };
}

describe("ACP session/fork (issue #28)", () => {
  it("a fork in a new connection keeps the parent's mode and model, and names its first run after itself", async () => {
    const { workspace, server, env } = await setup();
    const first = await connect(env, workspace.cwd);
    const { sessionId: parentId } = await first.agent.request(acp.methods.agent.session.new, {
      cwd: workspace.cwd,
      mcpServers: [],
    });
    await first.agent.request(acp.methods.agent.session.setMode, {
      sessionId: parentId,
      modeId: "deny",
    });
    await first.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId: parentId,
      configId: "model",
      value: "openai-chat:srv-model-b",
    });
    await first.agent.request(acp.methods.agent.session.prompt, {
      sessionId: parentId,
      prompt: [{ type: "text", text: "one" }],
    });
    await first.close();

    const second = await connect(env, workspace.cwd);
    // `session/fork` is on the SDK's unstable entry; the stable client sends it as any request.
    const fork = (await second.agent.request(unstable.methods.agent.session.fork, {
      sessionId: parentId,
      cwd: workspace.cwd,
      mcpServers: [],
    })) as unstable.ForkSessionResponse;
    expect(fork.modes?.currentModeId).toBe("deny");
    expect(fork.configOptions?.find((option) => option.id === "model")).toMatchObject({
      currentValue: "openai-chat:srv-model-b",
    });
    const answer = await second.agent.request(acp.methods.agent.session.prompt, {
      sessionId: fork.sessionId,
      prompt: [{ type: "text", text: "two" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(server.requests().map((request) => request.model)).toEqual([
      "srv-model-b",
      "srv-model-b",
    ]);
    const child = await homeLogs(workspace.home).lines(fork.sessionId);
    const turn = child.find((line) => line.type === "turn/start");
    expect(turn).toMatchObject({
      policy: { approval: "deny" },
      model: "openai-chat:srv-model-b",
      runId: fork.sessionId,
    });
  });
});
