/**
 * Everything the ACP agent runs after `initialize`: the handlers of the session methods and the
 * connection's context over the host. `acp-agent.ts` imports this module on the first request
 * that needs it (or right after answering `initialize`), so that `tapedeck acp` answers
 * `initialize` without evaluating the host's runtime (the agent, the store, the model clients,
 * `node:crypto`, `node:child_process`, `node:worker_threads`).
 */
import type { Host, McpSettings } from "@tapedeck/host";
import type { AcpAgentOptions } from "./acp-agent";
import type { AgentContext } from "./agent-context";

export { prompt } from "./prompt-turn";
export {
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

/**
 * This connection's context: the host, its open sessions, the model list asked once.
 *
 * @param wire - what `initialize` recorded (the client's capabilities), read through the context
 */
export function createAgentContext(
  options: AcpAgentOptions,
  host: Host,
  mcp: McpSettings | undefined,
  wire: Pick<AgentContext, "clientCapabilities">,
): AgentContext {
  let models: Promise<string[]> | undefined;
  return {
    host,
    sessions: new Map(),
    get clientCapabilities() {
      return wire.clientCapabilities;
    },
    set clientCapabilities(capabilities) {
      wire.clientCapabilities = capabilities;
    },
    contextWindow: options.contextWindow ?? 128_000,
    compactAt: options.compactAt,
    mcp: mcp ?? options.mcp ?? { env: {} },
    log: options.log ?? ((message: string) => process.stderr.write(`[tapedeck] ${message}\n`)),
    models: () => {
      models ??= host.listModels();
      return models;
    },
  };
}
