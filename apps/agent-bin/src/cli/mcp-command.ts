/**
 * `tapedeck mcp [--all]`: serves the session history over MCP on stdio. Imported lazily by the
 * CLI so other commands do not load the MCP SDK.
 */
import { parseArgs } from "node:util";
import { serveQueryServerOnStdio } from "@tapedeck/host/mcp";
import { createQueryHost } from "@tapedeck/host/query";
import type { QueryScope } from "@tapedeck/session-query";
import { defaultWorkspaceId } from "@tapedeck/session-store";
import type { Io } from "./io";

export const MCP_USAGE = `Usage: tapedeck mcp [--all]

Serves your Tapedeck session history to another agent over MCP (stdio): the tools
search_sessions, search_events, list_sessions, read_session, trace_event, trace_lineage.

  --all   every workspace (default: only the workspace of the current directory, its git root)`;

/** Runs the server until the client closes stdin; returns the exit code. */
export async function mcpCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { all: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    // stderr: a client that spawns `tapedeck mcp --help` by mistake must not read it as JSON-RPC.
    io.stderr.write(`${MCP_USAGE}\n`);
    return 0;
  }
  const warn = (text: string) => io.stderr.write(text);
  const host = createQueryHost({ env: io.env, warn });
  const scope: QueryScope = values.all
    ? { all: true }
    : { workspaceIds: [defaultWorkspaceId(io.cwd)] };
  try {
    await serveQueryServerOnStdio({ engine: host.engine, scope, warn });
  } finally {
    host.engine.close();
  }
  return 0;
}
