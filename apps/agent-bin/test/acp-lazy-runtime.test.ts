/**
 * The ACP agent answers `initialize` before it builds the host (issue #12: `tapedeck acp` then
 * answers without evaluating the agent, the store and the model clients); the first request that
 * needs the host waits for it, and a host that cannot be built is that request's error.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { createHost, type Host } from "@tapedeck/host";
import { TapedeckError } from "@tapedeck/session";
import { tempWorkspace } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { createAcpAgent, type LazyHost } from "../src/acp/acp-agent";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A client connected in-process to an agent whose host is `host`. */
function connect(host: LazyHost): acp.ClientContext {
  const app = createAcpAgent({ host, log: () => undefined });
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const agentConnection = app.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const client = acp
    .client({ name: "test-client" })
    .connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  cleanups.push(() => {
    client.close();
    agentConnection.close();
  });
  return client.agent;
}

const initialize = (agent: acp.ClientContext) =>
  agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });

describe("the ACP agent's runtime, loaded after initialize", () => {
  it("answers initialize while the host is not built yet; session/new waits for it; it is built once", async () => {
    const workspace = await tempWorkspace("tapedeck-acp-lazy-");
    cleanups.push(() => workspace.cleanup());
    let release: (host: Host) => void = () => undefined;
    const pending = new Promise<Host>((resolve) => {
      release = resolve;
    });
    let builds = 0;
    const agent = connect(async () => {
      builds += 1;
      return { host: await pending };
    });
    const answer = await initialize(agent);
    expect(answer.agentInfo?.name).toBe("tapedeck");
    let opened = false;
    const created = agent
      .request(acp.methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [] })
      .then((result) => {
        opened = true;
        return result;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened).toBe(false);
    const host = createHost({
      env: { TAPEDECK_HOME: workspace.home, TAPEDECK_MODEL: "openai:gpt-4.1-mini" },
      warn: () => undefined,
    });
    cleanups.push(() => host.close());
    release(host);
    const { sessionId } = await created;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await agent.request(acp.methods.agent.session.list, { cwd: workspace.cwd });
    expect(builds).toBe(1);
  });

  it("reports a host that cannot be built as the next request's error, and stays up", async () => {
    const agent = connect(async () => {
      throw new TapedeckError("MODEL_NOT_CONFIGURED", "no model: set TAPEDECK_MODEL.");
    });
    await initialize(agent);
    await expect(
      agent.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] }),
    ).rejects.toThrow(/no model: set TAPEDECK_MODEL/);
    // Still answering.
    expect((await initialize(agent)).protocolVersion).toBe(acp.PROTOCOL_VERSION);
  });
});
