/**
 * `session_query`: the engine as an agent tool. The scope is fixed when the tool is created (the
 * running session's workspace); nothing in the arguments can widen it, and unknown argument keys
 * are refused rather than ignored. The actions, their argument schemas and their answers are the
 * ones the MCP server offers as separate tools (`query-actions.ts`).
 */
import { lazySchema, TapedeckError } from "@tapedeck/session";
import { z } from "zod";
import { type QueryAction, queryFields, runQueryAction } from "./query-actions";
import type { QueryScope, SessionQueryEngine } from "./query-engine";

/** An agent tool definition; `parameters` is a JSON Schema object for the model. */
export interface SessionQueryTool {
  name: "session_query";
  description: string;
  parameters: Record<string, unknown>;
  /**
   * Validates `args` and answers in plain text. Bad arguments and expected failures (unknown
   * session, damaged log) come back as `Error [CODE]: …` text for the model to read; only
   * unexpected failures throw.
   */
  execute(args: unknown): Promise<string>;
}

/** Options of {@link createSessionQueryTool}. */
export interface SessionQueryToolOptions {
  /** The only workspace the tool can see. */
  workspaceId: string;
}

// The enum keeps its historical order: the JSON Schema (and so the `toolsDigest` of every
// recorded model call) must not change when the actions are reordered elsewhere.
const actionOrder = [
  "search_events",
  "search_sessions",
  "list_sessions",
  "read_session",
  "trace_event",
  "trace_lineage",
] as const satisfies readonly QueryAction[];

const argsSchema = lazySchema(() =>
  z.strictObject({
    action: z.enum(actionOrder).describe("What to do."),
    ...queryFields(),
  }),
);

/**
 * The first problem of a failed parse as `Error [INVALID_QUERY]: field: message`, the text both
 * `session_query` and the MCP tools answer bad arguments with.
 */
export function invalidArgumentsText(error: z.ZodError): string {
  const issue = error.issues[0];
  const field =
    issue === undefined || issue.path.length === 0 ? "(arguments)" : issue.path.join(".");
  return `Error [INVALID_QUERY]: ${field}: ${issue?.message ?? "invalid arguments"}`;
}

/** Creates the `session_query` tool over `engine`, confined to one workspace. */
export function createSessionQueryTool(
  engine: SessionQueryEngine,
  options: SessionQueryToolOptions,
): SessionQueryTool {
  const workspaceId = z.string().min(1).parse(options.workspaceId);
  // Built here, never from the arguments: the one place the scope is decided.
  const scope: QueryScope = { workspaceIds: [workspaceId] };
  return {
    name: "session_query",
    description:
      "Search and read past agent sessions of this workspace: find events by text and filters, list or search sessions, read a session's events, trace an event's compactions and citations, or a session's forks.",
    parameters: z.toJSONSchema(argsSchema(), { target: "draft-2020-12" }) as Record<
      string,
      unknown
    >,
    async execute(args) {
      const parsed = argsSchema().safeParse(args);
      if (!parsed.success) return invalidArgumentsText(parsed.error);
      const { action, ...rest } = parsed.data;
      try {
        return (await runQueryAction(engine, scope, action, rest)).text;
      } catch (error) {
        if (TapedeckError.isInstance(error)) return `Error [${error.code}]: ${error.message}`;
        throw error;
      }
    },
  };
}
