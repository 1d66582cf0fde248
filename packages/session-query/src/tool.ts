/**
 * `session_query`: the engine as an agent tool. The scope is fixed when the tool is created (the
 * running session's workspace); nothing in the arguments can widen it, and unknown argument keys
 * are refused rather than ignored.
 */
import { messageRoleSchema, type SessionEventType, TapedeckError } from "@tapedeck/session";
import { z } from "zod";
import type {
  EventHit,
  EventSearchQuery,
  Lineage,
  LineageNode,
  Page,
  QueryScope,
  SessionQueryEngine,
  SessionSummary,
} from "./query-engine";
import { eventText } from "./text";

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

const toolLimit = 50;

const argsSchema = z.strictObject({
  action: z
    .enum([
      "search_events",
      "search_sessions",
      "list_sessions",
      "read_session",
      "trace_event",
      "trace_lineage",
    ])
    .describe("What to do."),
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
  limit: z.number().int().min(1).max(toolLimit).optional().describe("Page size (default 10)."),
  cursor: z
    .string()
    .optional()
    .describe("nextCursor from a previous call with the same arguments."),
});

type ToolArgs = z.output<typeof argsSchema>;

const clip = (text: string, length: number) =>
  text.length <= length ? text : `${text.slice(0, length - 1)}…`;

function describeSession(summary: SessionSummary): string {
  const parts = [
    summary.id,
    summary.status,
    `updated ${summary.updatedAt}`,
    `${summary.turnCount} turns`,
    summary.parent === null
      ? null
      : `fork of ${summary.parent.sessionId} at seq ${summary.parent.seq}`,
    summary.title === null ? "(no user message)" : JSON.stringify(summary.title),
  ];
  return `- ${parts.filter((part) => part !== null).join(" · ")}`;
}

function describeHit(hit: EventHit): string {
  const { event } = hit;
  const kind = event.type === "message" ? `message/${event.role}` : event.type;
  return `- session ${hit.sessionId} seq ${event.seq} · ${event.ts} · ${kind}\n  ${hit.snippet}`;
}

function withCursor<T>(page: Page<T>, describe: (item: T) => string, empty: string): string {
  if (page.items.length === 0) return empty;
  const lines = page.items.map(describe);
  if (page.nextCursor !== null) lines.push(`nextCursor: ${page.nextCursor}`);
  return lines.join("\n");
}

function describeTree(nodes: LineageNode[], indent: string): string[] {
  return nodes.flatMap((node) => [
    `${indent}- ${node.session.id} (forked at seq ${node.forkSeq}) ${node.session.title === null ? "" : JSON.stringify(node.session.title)}`.trimEnd(),
    ...describeTree(node.children, `${indent}  `),
  ]);
}

function describeLineage(lineage: Lineage): string {
  const lines = [`session: ${describeSession(lineage.session).slice(2)}`];
  if (lineage.ancestors.length > 0) {
    lines.push("ancestors (nearest first):");
    for (const ancestor of lineage.ancestors) {
      lines.push(`- ${ancestor.session.id}, branched at its seq ${ancestor.forkSeq}`);
    }
  }
  lines.push(lineage.descendants.length > 0 ? "forks:" : "forks: none");
  lines.push(...describeTree(lineage.descendants, ""));
  return lines.join("\n");
}

function required<T>(value: T | undefined, field: string, action: string): T {
  if (value === undefined)
    throw new TapedeckError("INVALID_QUERY", `${action} needs \`${field}\`.`);
  return value;
}

/** Creates the `session_query` tool over `engine`, confined to one workspace. */
export function createSessionQueryTool(
  engine: SessionQueryEngine,
  options: SessionQueryToolOptions,
): SessionQueryTool {
  const workspaceId = z.string().min(1).parse(options.workspaceId);
  // Built here, never from the arguments: the one place the scope is decided.
  const scope = (): QueryScope => ({ workspaceIds: [workspaceId] });

  const run = async (args: ToolArgs): Promise<string> => {
    const limit = args.limit ?? 10;
    switch (args.action) {
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
        return withCursor(
          await engine.searchEvents(scope(), query),
          describeHit,
          "No matching events.",
        );
      }
      case "search_sessions":
      case "list_sessions": {
        const query: Record<string, unknown> = { limit };
        if (args.cursor !== undefined) query.cursor = args.cursor;
        if (args.action === "search_sessions") {
          if (args.text !== undefined) query.text = args.text;
          if (args.since !== undefined) query.since = args.since;
          if (args.until !== undefined) query.until = args.until;
        }
        const page =
          args.action === "search_sessions"
            ? await engine.searchSessions(scope(), query)
            : await engine.listSessions(scope(), query);
        return withCursor(page, describeSession, "No sessions.");
      }
      case "read_session": {
        const sessionId = required(args.sessionId, "sessionId", args.action);
        const session = await engine.readSession(scope(), sessionId);
        const from = args.fromSeq ?? 1;
        const events = session.events.filter((event) => event.seq >= from).slice(0, limit);
        const lines = [
          `session ${session.sessionId} · ${session.events.length} events · last seq ${session.lastSeq} · ${session.turnCount} turns`,
          ...events.map((event) => {
            const text = eventText(event);
            const kind = event.type === "message" ? `message/${event.role}` : event.type;
            const hidden = session.replacedBy.has(event.seq) ? " (compacted away)" : "";
            return `#${event.seq} ${kind}${hidden}${text === "" ? "" : `: ${clip(text.replace(/\s+/gu, " "), 400)}`}`;
          }),
        ];
        const lastShown = events[events.length - 1];
        if (lastShown !== undefined && lastShown.seq < session.lastSeq) {
          lines.push(`(more: call again with fromSeq ${lastShown.seq + 1})`);
        }
        return lines.join("\n");
      }
      case "trace_event": {
        const sessionId = required(args.sessionId, "sessionId", args.action);
        const seq = required(args.seq, "seq", args.action);
        const trace = await engine.traceEvent(scope(), sessionId, seq);
        const show = (event: { seq: number; event: { type: string } }) =>
          `#${event.seq} ${event.event.type}`;
        return [
          `event #${seq} ${trace.event.type} · ${trace.visible ? "visible" : "not visible"} on the surface`,
          `replacement chain: ${trace.replacementChain.map(show).join(" → ")}`,
          `current version: ${trace.current === null ? "none" : show(trace.current)}`,
          `cites: ${trace.sources.length === 0 ? "nothing" : trace.sources.map(show).join(", ")}`,
          `cited by: ${trace.citedBy.length === 0 ? "nothing" : trace.citedBy.map((citer) => `${show(citer)} (depth ${citer.depth})`).join(", ")}`,
        ].join("\n");
      }
      case "trace_lineage": {
        const sessionId = required(args.sessionId, "sessionId", args.action);
        return describeLineage(await engine.traceLineage(scope(), sessionId));
      }
    }
  };

  return {
    name: "session_query",
    description:
      "Search and read past agent sessions of this workspace: find events by text and filters, list or search sessions, read a session's events, trace an event's compactions and citations, or a session's forks.",
    parameters: z.toJSONSchema(argsSchema, { target: "draft-2020-12" }) as Record<string, unknown>,
    async execute(args) {
      const parsed = argsSchema.safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field =
          issue === undefined || issue.path.length === 0 ? "(arguments)" : issue.path.join(".");
        return `Error [INVALID_QUERY]: ${field}: ${issue?.message ?? "invalid arguments"}`;
      }
      try {
        return await run(parsed.data);
      } catch (error) {
        if (TapedeckError.isInstance(error)) return `Error [${error.code}]: ${error.message}`;
        throw error;
      }
    },
  };
}
