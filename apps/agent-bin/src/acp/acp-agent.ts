import * as acp from "@agentclientprotocol/sdk/unstable";
import { AGENT_NAME, AGENT_VERSION, type Host, type McpSettings } from "@tapedeck/host";
import type { AgentContext } from "./agent-context";
import { toRequestError } from "./errors";
import { MCP_CAPABILITIES } from "./mcp-servers";
import { prompt } from "./prompt-turn";
import {
  closeSession,
  deleteSession,
  forkSession,
  listSessions,
  loadSession,
  newSession,
  resumeSession,
  setConfigOption,
  setMode,
} from "./session-handlers";

export { SESSION_MODES } from "./session-state";

/** What the ACP agent needs: the host, and a few settings of this connection. */
export interface AcpAgentOptions {
  host: Host;
  /** Context window shown in `usage_update` (default 128,000). */
  contextWindow?: number;
  /** Diagnostics (default: stderr). Never stdout. */
  log?: (message: string) => void;
  /** Estimated tokens above which a run compacts (passed to the run). */
  compactAt?: number;
  /** How MCP servers connect (timeouts, values of recorded variables); default no environment. */
  mcp?: McpSettings;
  /**
   * Called as the agent answers each `initialize`, before the answer is written (defer any work:
   * `tapedeck acp` writes its code cache on the next turn of the event loop).
   */
  onInitialized?: () => void;
}

/**
 * The Tapedeck ACP agent: sessions are Tapedeck session logs, prompts are runs of the host, modes
 * are the approval policy. Only the wire lives here: one handler per method
 * (`session-handlers.ts`, `prompt-turn.ts`). See `architecture/acp-mapping.md`.
 */
export function createAcpAgent(options: AcpAgentOptions): acp.AgentApp {
  const context = createAgentContext(options);
  const guard =
    <P, R>(handler: (params: P, client: acp.AgentContext) => R | Promise<R>) =>
    async ({ params, client }: { params: P; client: acp.AgentContext }): Promise<R> => {
      try {
        return await handler(params, client);
      } catch (error) {
        throw toRequestError(error);
      }
    };
  const { session } = acp.methods.agent;
  return acp
    .agent({ name: AGENT_NAME })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      context.clientCapabilities = params.clientCapabilities ?? {};
      options.onInitialized?.();
      return initializeResponse();
    })
    .onRequest(
      session.new,
      guard((params) => newSession(context, params)),
    )
    .onRequest(
      session.load,
      guard((params, client) => loadSession(context, params, client)),
    )
    .onRequest(
      session.resume,
      guard((params, client) => resumeSession(context, params, client)),
    )
    .onRequest(
      session.fork,
      guard((params) => forkSession(context, params)),
    )
    .onRequest(
      session.list,
      guard((params) => listSessions(context, params)),
    )
    .onRequest(
      session.close,
      guard((params) => closeSession(context, params)),
    )
    .onRequest(
      session.delete,
      guard((params) => deleteSession(context, params)),
    )
    .onRequest(
      session.setMode,
      guard((params) => setMode(context, params)),
    )
    .onRequest(
      session.setConfigOption,
      guard((params) => setConfigOption(context, params)),
    )
    .onRequest(
      session.prompt,
      guard((params, client) => prompt(context, params, client)),
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      context.sessions.get(params.sessionId)?.active?.controller.abort();
    });
}

/** What `initialize` answers: the capabilities of this agent. */
function initializeResponse(): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: MCP_CAPABILITIES,
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
    },
    agentInfo: { name: AGENT_NAME, title: "Tapedeck", version: AGENT_VERSION },
    authMethods: [],
  };
}

/** This connection's context: the host, its open sessions, the model list asked once. */
function createAgentContext(options: AcpAgentOptions): AgentContext {
  let models: Promise<string[]> | undefined;
  return {
    host: options.host,
    sessions: new Map(),
    clientCapabilities: {},
    contextWindow: options.contextWindow ?? 128_000,
    compactAt: options.compactAt,
    mcp: options.mcp ?? { env: {} },
    log: options.log ?? ((message: string) => process.stderr.write(`[tapedeck] ${message}\n`)),
    models: () => {
      models ??= options.host.listModels();
      return models;
    },
  };
}
