import * as acp from "@agentclientprotocol/sdk/unstable";
import type { Host, McpSettings } from "@tapedeck/host";
import { AGENT_NAME, AGENT_VERSION } from "@tapedeck/host/version";
import type { AgentContext } from "./agent-context";

export { SESSION_MODES } from "./session-state";

/**
 * What `initialize` advertises of MCP: stdio (always) and streamable HTTP (`mcp-servers.ts`
 * translates both); not the deprecated SSE.
 */
export const MCP_CAPABILITIES: acp.McpCapabilities = { http: true, sse: false };

/** The handlers and context, loaded on first use (`agent-runtime.ts`). */
type Runtime = typeof import("./agent-runtime");

/**
 * A host built on first use, with this connection's MCP settings (they replace
 * `AcpAgentOptions.mcp`): `tapedeck acp` answers `initialize` before it loads the runtime.
 */
export type LazyHost = () => Promise<{ host: Host; mcp?: McpSettings }>;

/** What the ACP agent needs: the host, and a few settings of this connection. */
export interface AcpAgentOptions {
  /** The host, or a function that builds it on the first request that needs it. */
  host: Host | LazyHost;
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
  const wire: Pick<AgentContext, "clientCapabilities"> = { clientCapabilities: {} };
  let loaded: Promise<{ run: Runtime; context: AgentContext }> | undefined;
  const load = () => {
    loaded ??= (async () => {
      const run = await import("./agent-runtime");
      const { host, mcp } =
        typeof options.host === "function" ? await options.host() : { host: options.host };
      return { run, context: run.createAgentContext(options, host, mcp, wire) };
    })();
    return loaded;
  };
  const guard =
    <P, R>(
      handler: (
        run: Runtime,
        context: AgentContext,
        params: P,
        client: acp.AgentContext,
      ) => R | Promise<R>,
    ) =>
    async ({ params, client }: { params: P; client: acp.AgentContext }): Promise<R> => {
      try {
        const { run, context } = await load();
        return await handler(run, context, params, client);
      } catch (error) {
        throw (await import("./errors")).toRequestError(error);
      }
    };
  const { session } = acp.methods.agent;
  return acp
    .agent({ name: AGENT_NAME })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      wire.clientCapabilities = params.clientCapabilities ?? {};
      options.onInitialized?.();
      // The runtime loads while the client reads the answer and prepares its next request (a
      // failure is the next request's answer).
      setImmediate(() => load().catch(() => undefined));
      return initializeResponse();
    })
    .onRequest(
      session.new,
      guard((run, context, params) => run.newSession(context, params)),
    )
    .onRequest(
      session.load,
      guard((run, context, params, client) => run.loadSession(context, params, client)),
    )
    .onRequest(
      session.resume,
      guard((run, context, params, client) => run.resumeSession(context, params, client)),
    )
    .onRequest(
      session.fork,
      guard((run, context, params) => run.forkSession(context, params)),
    )
    .onRequest(
      session.list,
      guard((run, context, params) => run.listSessions(context, params)),
    )
    .onRequest(
      session.close,
      guard((run, context, params) => run.closeSession(context, params)),
    )
    .onRequest(
      session.delete,
      guard((run, context, params) => run.deleteSession(context, params)),
    )
    .onRequest(
      session.setMode,
      guard((run, context, params) => run.setMode(context, params)),
    )
    .onRequest(
      session.setConfigOption,
      guard((run, context, params) => run.setConfigOption(context, params)),
    )
    .onRequest(
      session.prompt,
      guard((run, context, params, client) => run.prompt(context, params, client)),
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      // Before the runtime loaded there is no turn to cancel.
      void loaded?.then(({ context }) => {
        context.sessions.get(params.sessionId)?.active?.controller.abort();
      });
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
