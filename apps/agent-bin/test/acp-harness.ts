import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { createHost } from "@tapedeck/host";
import type { LlmProvider } from "@tapedeck/llm";
import type { SessionStore } from "@tapedeck/session-store";
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
  const root = existing
    ? undefined
    : await realpath(await mkdtemp(path.join(os.tmpdir(), "tapedeck-acp-")));
  const home = existing?.home ?? path.join(root ?? "", "home");
  const cwd = existing?.cwd ?? path.join(root ?? "", "work");
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
      if (root !== undefined) await rm(root, { recursive: true, force: true });
    },
  };
}

/** Updates of one kind, in order. */
export function updatesOf<K extends acp.SessionUpdate["sessionUpdate"]>(
  updates: readonly acp.SessionNotification[],
  kind: K,
): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> =>
        update.sessionUpdate === kind,
    );
}
