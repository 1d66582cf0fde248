/**
 * The six questions an agent may ask about past sessions, shared by every agent-facing surface:
 * the `session_query` tool (one tool, an `action` argument) and the MCP server (one tool per
 * action). Both validate with the same field schemas and answer with the same text, so a model
 * sees one behaviour whichever way it asks.
 */
import { lazySchema, messageRoleSchema, type SessionEventType } from "@tapedeck/session";
import { z } from "zod";
import { InvalidQueryError } from "./errors";
import {
  describeHit,
  describeLineage,
  describeSession,
  describeTrace,
  eventLine,
  filesChangedByTurn,
  hitData,
  lineageData,
  pageText,
  readData,
  sessionData,
  traceData,
  turnFilesNote,
} from "./query-answers";
import type {
  EventHit,
  EventSearchQuery,
  QueryScope,
  SessionQueryEngine,
  SessionSearchQuery,
} from "./query-engine";

/** The actions, in the order tools are listed. */
export const QUERY_ACTIONS = [
  "search_sessions",
  "search_events",
  "list_sessions",
  "read_session",
  "trace_event",
  "trace_lineage",
] as const;

/** One of {@link QUERY_ACTIONS}. */
export type QueryAction = (typeof QUERY_ACTIONS)[number];

/** Largest page an agent-facing query returns. */
export const QUERY_TOOL_LIMIT = 50;

/**
 * Every argument an action may take, each validated the same way on every surface. All optional
 * here; {@link queryActionSchema} makes an action's required ones required. Lengths and formats
 * beyond these (ids, times, cursors) are checked by the engine. Changing a field changes the
 * `session_query` JSON Schema, hence the `toolsDigest` of recorded model calls. Built on first
 * call (`lazySchema`), so commands that never take a query's arguments do not build them.
 */
export const queryFields = lazySchema(() => ({
  text: z
    .string()
    .max(2000)
    .optional()
    .describe("Words to find (all must occur). search_events, search_sessions."),
  sessionId: z
    .string()
    .optional()
    .describe(
      "Session id. Required for read_session, trace_event, trace_lineage; filters search_events.",
    ),
  types: z
    .array(z.string())
    .optional()
    .describe('Event types for search_events, e.g. ["message", "function_call", "compaction"].'),
  roles: z.array(messageRoleSchema).optional().describe("Message roles for search_events."),
  toolName: z.string().optional().describe("Tool name for search_events."),
  callId: z.string().optional().describe("Tool call id for search_events."),
  since: z.string().optional().describe("ISO-8601 time; only events/sessions at or after it."),
  until: z.string().optional().describe("ISO-8601 time; only events/sessions before it."),
  currentOnly: z
    .boolean()
    .optional()
    .describe("search_events: only events still visible (not compacted away)."),
  order: z.enum(["newest", "oldest", "relevance"]).optional().describe("search_events order."),
  seq: z.number().int().optional().describe("Event seq for trace_event."),
  fromSeq: z.number().int().optional().describe("read_session: first seq to show (default 1)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(QUERY_TOOL_LIMIT)
    .optional()
    .describe("Page size (default 10)."),
  cursor: z
    .string()
    .optional()
    .describe("nextCursor from a previous call with the same arguments."),
}));

type QueryFields = ReturnType<typeof queryFields>;
type FieldName = keyof QueryFields;

/** Arguments of any action, validated (an action's own required fields are checked when run). */
export type QueryArguments = { [K in FieldName]?: z.output<QueryFields[K]> };

/** Which fields each action takes; the required ones are listed in `required`. */
const actionFields: Record<QueryAction, { fields: FieldName[]; required: FieldName[] }> = {
  search_sessions: { fields: ["text", "since", "until", "limit", "cursor"], required: [] },
  search_events: {
    fields: [
      "text",
      "sessionId",
      "types",
      "roles",
      "toolName",
      "callId",
      "since",
      "until",
      "currentOnly",
      "order",
      "limit",
      "cursor",
    ],
    required: [],
  },
  list_sessions: { fields: ["limit", "cursor"], required: [] },
  read_session: { fields: ["sessionId", "fromSeq", "limit"], required: ["sessionId"] },
  trace_event: { fields: ["sessionId", "seq"], required: ["sessionId", "seq"] },
  trace_lineage: { fields: ["sessionId"], required: ["sessionId"] },
};

/** One-line descriptions written for a model. */
export const QUERY_ACTION_DESCRIPTIONS: Record<QueryAction, string> = {
  search_sessions:
    "Find past agent sessions whose first request or directory contains all the words of `text`; newest first. Returns session ids to read.",
  search_events:
    "Full-text search over everything past sessions did: messages, tool calls and outputs, compaction summaries. Filters by session, event type, role, tool, time. Returns snippets with session id and seq.",
  list_sessions: "List past sessions, most recently updated first, with title, status and turns.",
  read_session:
    "Read one session's events in order (message text, tool calls and outputs, compactions). Page with `fromSeq`.",
  trace_event:
    "Follow one event: which compaction replaced it, what it cites, and which later events (model calls, answers, tool outputs) derive from it.",
  trace_lineage: "Show a session's fork tree: the sessions it branched from and its forks.",
};

/**
 * The strict zod schema of one action's arguments: unknown keys are refused (a typo, or an
 * attempt to widen the scope, is an error rather than a silent no-op).
 */
export function queryActionSchema(action: QueryAction): z.ZodType<QueryArguments> {
  const { fields, required } = actionFields[action];
  const shape: Record<string, z.ZodType> = {};
  for (const field of fields) {
    const schema = queryFields()[field];
    shape[field] = required.includes(field) ? schema.unwrap() : schema;
  }
  return z.strictObject(shape) as unknown as z.ZodType<QueryArguments>;
}

/** What an action answers: compact text for a model, and the same as structured data. */
export interface QueryAnswer {
  text: string;
  data: Record<string, unknown>;
}

function required<T>(value: T | undefined, field: string, action: QueryAction): T {
  if (value === undefined) throw new InvalidQueryError(field, `${action} needs \`${field}\`.`);
  return value;
}

/**
 * Runs one action in `scope` (decided by the caller, never by the arguments). `args` must have
 * passed {@link queryActionSchema} or the `session_query` schema; fields the action does not use
 * are ignored.
 *
 * @throws InvalidQueryError for a missing required field or a value the engine refuses;
 * SessionNotFoundError, EventNotFoundError, EventLogCorruptError as the engine.
 */
export async function runQueryAction(
  engine: SessionQueryEngine,
  scope: QueryScope,
  action: QueryAction,
  args: QueryArguments,
): Promise<QueryAnswer> {
  const limit = args.limit ?? 10;
  switch (action) {
    case "search_events": {
      const query: EventSearchQuery = { limit };
      if (args.text !== undefined) query.text = args.text;
      if (args.sessionId !== undefined) query.sessionId = args.sessionId;
      // The engine validates the names: an unknown type comes back as an INVALID_QUERY error.
      if (args.types !== undefined) query.types = args.types as SessionEventType[];
      if (args.roles !== undefined) query.roles = args.roles;
      if (args.toolName !== undefined) query.toolName = args.toolName;
      if (args.callId !== undefined) query.callId = args.callId;
      if (args.since !== undefined) query.since = args.since;
      if (args.until !== undefined) query.until = args.until;
      if (args.currentOnly !== undefined) query.currentOnly = args.currentOnly;
      if (args.order !== undefined) query.order = args.order;
      if (args.cursor !== undefined) query.cursor = args.cursor;
      const page = await engine.searchEvents(scope, query);
      return {
        text: pageText(page, describeHit, "No matching events."),
        data: {
          hits: page.items.map((hit: EventHit) => hitData(hit)),
          nextCursor: page.nextCursor,
        },
      };
    }
    case "search_sessions":
    case "list_sessions": {
      const query: SessionSearchQuery = { limit };
      if (args.cursor !== undefined) query.cursor = args.cursor;
      if (action === "search_sessions") {
        if (args.text !== undefined) query.text = args.text;
        if (args.since !== undefined) query.since = args.since;
        if (args.until !== undefined) query.until = args.until;
      }
      const page =
        action === "search_sessions"
          ? await engine.searchSessions(scope, query)
          : await engine.listSessions(scope, query);
      return {
        text: pageText(page, describeSession, "No sessions."),
        data: { sessions: page.items.map(sessionData), nextCursor: page.nextCursor },
      };
    }
    case "read_session": {
      const sessionId = required(args.sessionId, "sessionId", action);
      const session = await engine.readSession(scope, sessionId);
      const from = args.fromSeq ?? 1;
      const events = session.events.filter((event) => event.seq >= from).slice(0, limit);
      const lastShown = events[events.length - 1];
      const nextFromSeq =
        lastShown !== undefined && lastShown.seq < session.lastSeq ? lastShown.seq + 1 : null;
      const turnFiles = filesChangedByTurn(session.events);
      const lines = [
        `session ${session.sessionId} · ${session.events.length} events · last seq ${session.lastSeq} · ${session.turnCount} turns`,
        ...events.map(
          (event) =>
            eventLine(event, session.replacedBy.has(event.seq)) +
            (event.type === "turn/end" ? turnFilesNote(turnFiles.get(event.runId)) : ""),
        ),
      ];
      if (nextFromSeq !== null) lines.push(`(more: call again with fromSeq ${nextFromSeq})`);
      return { text: lines.join("\n"), data: readData(session, events, nextFromSeq) };
    }
    case "trace_event": {
      const sessionId = required(args.sessionId, "sessionId", action);
      const seq = required(args.seq, "seq", action);
      const trace = await engine.traceEvent(scope, sessionId, seq);
      return { text: describeTrace(seq, trace), data: traceData(trace) };
    }
    case "trace_lineage": {
      const sessionId = required(args.sessionId, "sessionId", action);
      const lineage = await engine.traceLineage(scope, sessionId);
      return { text: describeLineage(lineage), data: lineageData(lineage) };
    }
  }
}
