/**
 * `tapedeck mcp`: the query engine served over MCP, one tool per query action. The scope is fixed
 * when the server is created (the workspace of its cwd, or every workspace with `--all`); no
 * argument can widen it, and a session outside it answers exactly like a missing one.
 *
 * Bad arguments (wrong types, unknown keys, a 50,000-character query) and failed queries come back
 * as tool results with `isError: true`, so the model reads what went wrong and the server keeps
 * answering. Nothing but JSON-RPC is written to stdout; notices go to stderr.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { TapedeckError } from "@tapedeck/session";
import {
  invalidArgumentsText,
  QUERY_ACTION_DESCRIPTIONS,
  QUERY_ACTIONS,
  type QueryAction,
  type QueryScope,
  queryActionSchema,
  runQueryAction,
  type SessionQueryEngine,
} from "@tapedeck/session-query";
import { z } from "zod";
import type { Warn } from "../query-index";
import { AGENT_NAME, AGENT_VERSION } from "../version";

/** Options of {@link createQueryServer}. */
export interface QueryServerOptions {
  /** The engine; it is expected to keep itself fresh (the host's engine syncs before each query). */
  engine: SessionQueryEngine;
  /** Every query runs in this scope. */
  scope: QueryScope;
  /** Where unexpected failures are reported (default stderr). */
  warn?: Warn;
}

const INSTRUCTIONS =
  "Tapedeck's record of past coding-agent sessions (every message, tool call and output). " +
  "Use search_events to find what was done or said, search_sessions or list_sessions to find a " +
  "session, read_session to read it, trace_event and trace_lineage to follow compactions and forks. " +
  "Pass nextCursor back to page.";

const isQueryAction = (name: string): name is QueryAction =>
  (QUERY_ACTIONS as readonly string[]).includes(name);

/** The tool list, built once: the same strict schemas `session_query` validates with. */
function toolList(): Tool[] {
  return QUERY_ACTIONS.map((action) => {
    const inputSchema = z.toJSONSchema(queryActionSchema(action), {
      target: "draft-2020-12",
    }) as Tool["inputSchema"];
    delete (inputSchema as { $schema?: unknown }).$schema;
    return {
      name: action,
      description: QUERY_ACTION_DESCRIPTIONS[action],
      inputSchema,
      annotations: {
        title: action.replace(/_/g, " "),
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    };
  });
}

const errorResult = (text: string): CallToolResult => ({
  content: [{ type: "text", text }],
  isError: true,
});

/** Answers one `tools/call` of a known action. Never throws. */
async function callAction(
  options: QueryServerOptions,
  action: QueryAction,
  input: unknown,
): Promise<CallToolResult> {
  const parsed = queryActionSchema(action).safeParse(input ?? {});
  if (!parsed.success) return errorResult(invalidArgumentsText(parsed.error));
  try {
    const answer = await runQueryAction(options.engine, options.scope, action, parsed.data);
    return { content: [{ type: "text", text: answer.text }], structuredContent: answer.data };
  } catch (error) {
    if (TapedeckError.isInstance(error)) {
      return errorResult(`Error [${error.code}]: ${error.message}`);
    }
    (options.warn ?? ((text) => process.stderr.write(text)))(
      `tapedeck mcp: ${action} failed: ${(error as Error)?.stack ?? String(error)}\n`,
    );
    return errorResult(`Error [INTERNAL]: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** An MCP server (not yet connected) answering the six query tools in `options.scope`. */
export function createQueryServer(options: QueryServerOptions): Server {
  const server = new Server(
    { name: AGENT_NAME, title: "Tapedeck session history", version: AGENT_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      // The SDK validates only elicitation answers with it, and this server never elicits; the
      // default (Ajv with formats, built at construction) costs startup time for nothing.
      jsonSchemaValidator: {
        getValidator: () => () => ({
          valid: false,
          data: undefined,
          errorMessage: "tapedeck mcp does not elicit input",
        }),
      },
    },
  );
  const tools = toolList();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name, arguments: input } = request.params;
    if (!isQueryAction(name)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(name)}. Available: ${QUERY_ACTIONS.join(", ")}.`,
      );
    }
    return callAction(options, name, input);
  });
  return server;
}

/**
 * Serves {@link createQueryServer} on this process's stdin/stdout until the client closes stdin.
 * Resolves once the connection is closed.
 */
export async function serveQueryServerOnStdio(options: QueryServerOptions): Promise<void> {
  const server = createQueryServer(options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  process.stdin.once("end", () => void server.close());
  await closed;
}
