/**
 * The MCP servers of a run, decided once here for every surface: the servers a surface gives
 * (ACP `mcpServers`, `--mcp-config`) replace the session's list; without them the servers last
 * recorded in the log (`x-mcp/servers`) connect again, so a resumed or forked session gets its
 * tools back, but only a list this home recorded from the person's own configuration
 * (`sessionTrustLedger`), and only after the person approved it for this run (`start-run.ts`). The
 * MCP SDK is imported only when there is a server to connect.
 */
import type { AnyAgentTool, InitializedRun } from "@tapedeck/agent";
import {
  lastRecordedServers,
  MCP_SERVERS_EVENT,
  type McpServerConfig,
  type RecordedServer,
  recordedServers,
  recordedServersDigest,
  sameAsRecorded,
  serversFromRecord,
} from "./mcp/server-config";
import type { Warn } from "./query-index";
import type { SessionTrustLedger } from "./session-trust";

/** How the host connects MCP servers. */
export interface McpSettings {
  /** Values of recorded variable names when a session's servers reconnect from its log. */
  env: Record<string, string | undefined>;
  /**
   * The home's record of lists the person configured. Without it no recorded list ever starts
   * again (a surface must give its servers each time).
   */
  trust?: SessionTrustLedger;
  /** Recorded lists approved in this process (`sessionId digest`): asked once, not every prompt. */
  approved?: Set<string>;
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

/** The MCP servers a run starts with, and whether they came from the log (approval needed). */
export interface McpPlan {
  servers: McpServerConfig[];
  /** Servers recorded in the log: each run asks once before starting them (`approvalKey`). */
  recorded?: { servers: RecordedServer[]; approvalKey: string };
}

/** The session and its fork ancestors, nearest first (a fork inherits its parent's record). */
function lineage(initialized: InitializedRun): string[] {
  const ids = [initialized.sessionId];
  const parent = initialized.session.header.parent;
  if (parent !== undefined) ids.push(parent.sessionId);
  return ids;
}

/**
 * The servers of the run `initialized` starts: `given` when a surface gave a list (recorded in the
 * log, names of variables and headers only, and in the home's trust ledger), else the ones
 * recorded in the session if this home recorded that list from the person's configuration. A
 * recorded list it did not is never started: a line says so and how to give them.
 */
export async function serversOfRun(
  initialized: InitializedRun,
  given: readonly McpServerConfig[] | undefined,
  settings: McpSettings,
): Promise<McpPlan> {
  const events = initialized.session.events;
  if (given !== undefined) {
    if (!sameAsRecorded(events, given)) {
      await initialized.writer.append([
        { type: MCP_SERVERS_EVENT, runId: initialized.runId, servers: recordedServers(given) },
      ]);
    }
    if (given.length > 0) {
      settings.trust?.add(
        initialized.sessionId,
        `mcp ${recordedServersDigest(recordedServers(given))}`,
      );
    }
    return { servers: [...given] };
  }
  const recorded = lastRecordedServers(events);
  if (recorded.length === 0) return { servers: [] };
  const digest = recordedServersDigest(recorded);
  if (settings.trust?.has(lineage(initialized), `mcp ${digest}`) !== true) {
    (settings.warn ?? ((text: string) => process.stderr.write(text)))(
      `tapedeck: not starting the MCP servers recorded in session ${initialized.sessionId} (${recorded.map((server) => server.name).join(", ")}): this home did not record them from your configuration (the log may come from elsewhere). Give them again with --mcp-config FILE (ACP: mcpServers) to use them.\n`,
    );
    return { servers: [] };
  }
  return {
    servers: serversFromRecord(recorded, settings.env),
    recorded: { servers: recorded, approvalKey: `${initialized.sessionId} ${digest}` },
  };
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
