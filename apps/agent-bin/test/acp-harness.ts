import { mkdir } from "node:fs/promises";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { createHost } from "@tapedeck/host";
import type { LlmProvider } from "@tapedeck/llm";
import type { SessionStore } from "@tapedeck/session-store";
import { tempWorkspace } from "@tapedeck/test-harness";
import { createAcpAgent } from "../src/acp/acp-agent";

/** A client connected in-process to a fresh agent over paired ndJson streams. */
export interface AcpHarness {
  agent: acp.ClientContext;
  store: SessionStore;
  cwd: string;
  home: string;
  updates: acp.SessionNotification[];
  permissionRequests: acp.RequestPermissionRequest[];
  /** How the next permission request is answered. */
  answer: {
    next: (request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>;
  };
  close(): Promise<void>;
}

export async function acpHarness(
  provider: (model: string) => LlmProvider,
  clientCapabilities: acp.ClientCapabilities = {},
  existing?: { home: string; cwd: string },
): Promise<AcpHarness> {
  const fresh = existing === undefined ? await tempWorkspace("tapedeck-acp-") : undefined;
  const home = existing?.home ?? fresh?.home ?? "";
  const cwd = existing?.cwd ?? fresh?.cwd ?? "";
  await mkdir(cwd, { recursive: true });
  const host = createHost({
    env: { TAPEDECK_HOME: home, TAPEDECK_MODEL: "openai:gpt-4.1-mini" },
    providerFor: (model) => provider(model),
    warn: () => undefined,
  });
  const store = host.store;
  const app = createAcpAgent({ host, log: () => undefined });
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const agentConnection = app.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const updates: acp.SessionNotification[] = [];
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  const answer: AcpHarness["answer"] = {
    next: async () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  };
  const clientConnection = acp
    .client({ name: "test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissionRequests.push(params);
      return answer.next(params);
    })
    .connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  await clientConnection.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities,
  });
  return {
    agent: clientConnection.agent,
    store,
    cwd,
    home,
    updates,
    permissionRequests,
    answer,
    async close() {
      clientConnection.close();
      agentConnection.close();
      host.close();
      await fresh?.cleanup();
    },
  };
}
