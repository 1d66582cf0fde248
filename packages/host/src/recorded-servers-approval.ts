/**
 * Asking once before a resumed run starts the MCP servers its log records: what will start
 * (command, args, names of variables) is shown whole, hidden characters visible, through the
 * surface's own approver (CLI prompt, ACP permission request, the viewer's approval card). No
 * approver, or no answer but "allow": nothing starts.
 */
import type { ApprovalRequest, Approver } from "@tapedeck/agent";
import { toVisibleText } from "@tapedeck/session";
import type { RecordedServer } from "./mcp/server-config";

/** The `name` of the approval request for recorded MCP servers. */
export const RECORDED_MCP_SERVERS_APPROVAL = "start_recorded_mcp_servers";

/** One argument as a person reads it: quoted when it holds spaces or quotes. */
function shownArgument(argument: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(argument) ? argument : JSON.stringify(argument);
}

/** One server as the approval shows it: `name: command args… (env: A, B)` or `name: URL`. */
function describeServer(server: RecordedServer): string {
  if (server.transport === "http") {
    const headers =
      server.headerNames.length > 0 ? ` (headers: ${server.headerNames.join(", ")})` : "";
    return `${server.name}: ${server.url}${headers}`;
  }
  const line = [server.command, ...server.args].map(shownArgument).join(" ");
  const env = server.envNames.length > 0 ? ` (env: ${server.envNames.join(", ")})` : "";
  return `${server.name}: ${line}${env}`;
}

/** The approval request that shows what a resumed run would start. */
export function recordedServersRequest(
  run: { runId: string; sessionId: string },
  servers: readonly RecordedServer[],
): ApprovalRequest {
  const visible = toVisibleText(
    `start the MCP servers this session recorded: ${servers.map(describeServer).join("; ")}`,
  );
  return {
    runId: run.runId,
    sessionId: run.sessionId,
    callId: `mcp-servers-${run.runId}`,
    name: RECORDED_MCP_SERVERS_APPROVAL,
    input: { servers },
    title: visible.hiddenCount > 0 ? `${visible.text} [contains hidden characters]` : visible.text,
    hiddenCharacters: visible.hiddenCount > 0,
    kind: "execute",
    locations: [],
    options: ["allow_once", "reject"],
  };
}

/**
 * True when the person allows starting `servers` for this run (asked through `approve`); false
 * without an approver, on any other answer, or when asking fails.
 */
export async function approveRecordedServers(
  request: ApprovalRequest,
  approve: Approver | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  if (approve === undefined) return false;
  try {
    const decision = await approve(request, signal);
    return decision === "allow_once" || decision === "allow_always";
  } catch {
    return false;
  }
}
