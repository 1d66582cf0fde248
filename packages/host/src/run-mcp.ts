/**
 * The MCP servers of a run, decided once here for every surface: the servers a surface gives
 * (ACP `mcpServers`, `--mcp-config`) replace the session's list; without them the servers last
 * recorded in the log (`x-mcp/servers`) connect again, so a resumed or forked session gets its
 * tools back. The MCP SDK is imported only when there is a server to connect.
 */
import type { AnyAgentTool, InitializedRun } from "@tapedeck/agent";
import {
  MCP_SERVERS_EVENT,
  type McpServerConfig,
  recordedServers,
  sameAsRecorded,
  serversFromLog,
} from "./mcp/server-config";
import type { Warn } from "./query-index";

/** How the host connects MCP servers. */
export interface McpSettings {
  /** Values of recorded variable names when a session's servers reconnect from its log. */
  env: Record<string, string | undefined>;
  warn?: Warn;
  /** `TAPEDECK_MCP_START_TIMEOUT_MS`, default 30 s. */
  startTimeoutMs?: number;
  /** `TAPEDECK_MCP_CALL_TIMEOUT_MS`, default 120 s. */
  callTimeoutMs?: number;
}

/** Connects servers for one run; `release` ends what this run started. */
export type McpConnector = (
  servers: readonly McpServerConfig[],
  cwd: string,
) => Promise<{ tools: AnyAgentTool[]; close(): Promise<void> }>;

/** Reads the MCP timeouts from the environment (milliseconds; ignored when not a number). */
export function mcpSettingsFromEnv(
  env: Record<string, string | undefined>,
  warn?: Warn,
): McpSettings {
  const number = (value: string | undefined) => {
    const parsed = Number(value);
    return value !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
  };
  const start = number(env.TAPEDECK_MCP_START_TIMEOUT_MS);
  const call = number(env.TAPEDECK_MCP_CALL_TIMEOUT_MS);
  return {
    env,
    ...(warn === undefined ? {} : { warn }),
    ...(start === undefined ? {} : { startTimeoutMs: start }),
    ...(call === undefined ? {} : { callTimeoutMs: call }),
  };
}

/**
 * The servers of the run `initialized` starts: `given` when a surface gave a list, else the ones
 * recorded in the session. A list that differs from the last record is recorded (names of
 * variables and headers only) inside the run's turn.
 */
export async function serversOfRun(
  initialized: InitializedRun,
  given: readonly McpServerConfig[] | undefined,
  settings: McpSettings,
): Promise<McpServerConfig[]> {
  const events = initialized.session.events;
  const servers = given === undefined ? serversFromLog(events, settings.env) : [...given];
  if (!sameAsRecorded(events, servers)) {
    await initialized.writer.append([
      { type: MCP_SERVERS_EVENT, runId: initialized.runId, servers: recordedServers(servers) },
    ]);
  }
  return servers;
}

/** The default connector: starts the servers for the run and stops them after it. */
export function perRunConnector(settings: McpSettings): McpConnector {
  return async (servers, cwd) => {
    const { connectMcpServers } = await import("./mcp/mcp-client");
    return connectMcpServers(servers, {
      cwd,
      ...(settings.warn === undefined ? {} : { warn: settings.warn }),
      ...(settings.startTimeoutMs === undefined ? {} : { startTimeoutMs: settings.startTimeoutMs }),
      ...(settings.callTimeoutMs === undefined ? {} : { callTimeoutMs: settings.callTimeoutMs }),
    });
  };
}
