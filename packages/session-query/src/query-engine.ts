import type {
  MessageRole,
  ParentRef,
  Session,
  SessionEvent,
  SessionEventType,
} from "@tapedeck/session";

/**
 * Which sessions a caller may see. `{ all: true }` is the local owner; `{ workspaceIds }` limits
 * every operation to sessions of those workspaces. A session outside the scope behaves exactly
 * like a missing one.
 */
export type QueryScope = { all: true } | { workspaceIds: readonly string[] };

/** One page of results. Pass `nextCursor` back (with the same query) for the next page. */
export interface Page<T> {
  items: T[];
  /** Opaque; `null` when there is nothing more. */
  nextCursor: string | null;
}

/**
 * Where a session stands:
 * - `active`: a turn is open (a run is writing, or one crashed mid-turn and resume will repair it);
 * - `completed`: no turn is open and the last turn ended `completed` (or there was no turn yet);
 * - `interrupted`: no turn is open and the last turn ended `interrupted`, `cancelled` or `failed`;
 * - `imported`: the last turn is open and was written by `tapedeck import` (the other tool's
 *   session as far as it was read: its source may still grow, and a later import appends to it;
 *   a run that continues it closes that turn first, as for `interrupted`);
 * - `damaged`: the log breaks the format or an invariant; it cannot be read or exported.
 */
export type SessionStatus = "active" | "completed" | "interrupted" | "imported" | "damaged";

/** Every {@link SessionStatus}, for schemas and filters. */
export const SESSION_STATUSES = [
  "active",
  "completed",
  "interrupted",
  "imported",
  "damaged",
] as const satisfies readonly SessionStatus[];

/** Token totals over a session's own `model/response` events. */
export interface UsageSummary {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** What a list or search returns per session. Counts cover the session's own events only. */
export interface SessionSummary {
  id: string;
  workspaceId: string;
  cwd: string;
  /** First user message, whitespace collapsed, at most 120 characters; `null` before one exists. */
  title: string | null;
  /** From the header. */
  createdAt: string;
  /** `ts` of the last event (the header's `createdAt` when there is none). */
  updatedAt: string;
  /** Events in this session's own file (a fork's parent prefix is not counted). */
  eventCount: number;
  /** `turn/start` events in this session's own file. */
  turnCount: number;
  status: SessionStatus;
  /** For a fork: the session and seq it branches from. */
  parent: ParentRef | null;
  /** Direct forks of this session within the scope. */
  forkCount: number;
  /** Model of the last `turn/start`, e.g. `openai:gpt-4.1-mini`. */
  model: string | null;
  usage: UsageSummary;
  /** When `status` is `damaged`: the error code (e.g. `SEQ_GAP`) and message. */
  damage?: { code: string; message: string };
  /** For a sub-agent: the tool call of another session that started it (the header's `spawnedBy`). */
  spawnedBy?: SpawnRef;
}

/** A tool call that started a sub-agent session: the session, the call's seq and its `callId`. */
export interface SpawnRef {
  sessionId: string;
  seq: number;
  callId: string;
}

/** A sub-agent link: the session at the other end, and the call (seq, `callId`) that started it. */
export interface SubAgentLink {
  session: SessionSummary;
  /** Seq of the `function_call` in the spawning session. */
  seq: number;
  callId: string;
}

/** Markers put around each matched term in a snippet. Default `«` and `»`. */
export interface HighlightMarkers {
  open: string;
  close: string;
}

/** Ordering of event search results. */
export type EventOrder = "newest" | "oldest" | "relevance";

/**
 * How the last word of `text` matches. `none` (default): whole tokens, like every other word.
 * `last`: the last word's last token also matches longer tokens it begins (`compa` finds
 * `compaction`, `multi-ag` finds `multi-agent`) — for a search-as-you-type box. A last token
 * shorter than 2 characters (`MIN_PREFIX_LENGTH`) or in CJK script matches as with `none` (CJK
 * already matches as a substring). The snippet highlights the whole token that matched.
 */
export type PrefixMatching = "none" | "last";

/** Query of {@link SessionQueryEngine.searchEvents}. Every filter narrows (AND). */
export interface EventSearchQuery {
  /**
   * Raw user text. Every word must occur (any order, whole words, case- and accent-insensitive);
   * Chinese, Japanese and Korean text matches as a substring. Never an FTS syntax error.
   */
  text?: string;
  /** Default `none`; `last`: the last word of `text` matches as a prefix. */
  prefix?: PrefixMatching;
  sessionId?: string;
  types?: readonly SessionEventType[];
  /** Message roles; implies events of type `message`. */
  roles?: readonly MessageRole[];
  /** Tool name of a `function_call` or of the call a `function_call_output` answers. */
  toolName?: string;
  callId?: string;
  /** Inclusive lower bound on the event's `ts` (ISO-8601). */
  since?: string;
  /** Exclusive upper bound on the event's `ts` (ISO-8601). */
  until?: string;
  /** Only events still visible on their session's surface (not replaced by a compaction). */
  currentOnly?: boolean;
  /** Default `newest`; `relevance` is bm25 (falls back to `newest` without `text`). */
  order?: EventOrder;
  /** Default 20, capped at 200. */
  limit?: number;
  cursor?: string;
  highlight?: HighlightMarkers;
}

/** One matching event. */
export interface EventHit {
  sessionId: string;
  event: SessionEvent;
  /** The session's summary at query time. */
  session: SessionSummary;
  /**
   * Up to ~160 characters of the event's text around the first match, matched terms wrapped in
   * the highlight markers, `…` where text was cut. Empty for an event without text.
   */
  snippet: string;
  /** Relevance score (higher is better) when ordered by relevance. */
  score?: number;
}

/** Ordering of session lists. */
export type SessionOrder = "updatedAt" | "createdAt";

/** Options of {@link SessionQueryEngine.listSessions}. */
export interface ListSessionsOptions {
  /** Default `updatedAt`. Always newest first. */
  orderBy?: SessionOrder;
  /** Only sessions with this status. */
  status?: SessionStatus;
  /** Default 20, capped at 200. */
  limit?: number;
  cursor?: string;
}

/** Query of {@link SessionQueryEngine.searchSessions}. */
export interface SessionSearchQuery extends ListSessionsOptions {
  /** Words matched against the first user message (whole, not just the title) and the cwd. */
  text?: string;
  /** Default `none`; `last`: the last word of `text` matches as a prefix. */
  prefix?: PrefixMatching;
  /** Sessions updated at or after this ISO-8601 time. */
  since?: string;
  /** Sessions updated before this ISO-8601 time. */
  until?: string;
}

/** An event with its seq, as a trace lists it. */
export interface TracedEvent {
  seq: number;
  event: SessionEvent;
}

/**
 * Why one event cites another: `source` (its `sourceEventSeqs`), `input` (a `model/request` whose
 * `inputItems` sent it), `answer` (an assistant `message` or `function_call` answering a
 * `model/request`). The last two are derived from the log, not written in it.
 */
export type CitationKind = "source" | "input" | "answer";

/** A few words for a citation kind, as the CLI and the viewer show it. */
export function citationLabel(via: CitationKind): string {
  switch (via) {
    case "source":
      return "source";
    case "input":
      return "model input";
    case "answer":
      return "answer";
  }
}

/** An event the traced one cites, and how. */
export interface SourceEvent extends TracedEvent {
  via: CitationKind;
}

/** An event citing the traced one, `depth` steps away (1 = direct); `via` is its last step. */
export interface CitingEvent extends TracedEvent {
  depth: number;
  via: CitationKind;
}

/** What {@link SessionQueryEngine.traceEvent} returns. */
export interface EventTrace {
  sessionId: string;
  event: SessionEvent;
  /** True when the event itself is on the surface now. */
  visible: boolean;
  /**
   * The event, then each event that replaced the previous one, up to the version visible now.
   * Length 1 when the event was never replaced.
   */
  replacementChain: TracedEvent[];
  /** The visible end of the chain, or `null` when the event is not a surface item. */
  current: TracedEvent | null;
  /**
   * The events this one cites: its own `sourceEventSeqs`, and derived ones (a `model/request`'s
   * `inputItems`; for an assistant message or call, the `model/request` it answers). By seq.
   */
  sources: SourceEvent[];
  /**
   * Every event that cites this one, directly or transitively, by depth then seq; derived
   * citations included, so a user message lists every model call that saw it and what each
   * answered.
   */
  citedBy: CitingEvent[];
  /**
   * For a `function_call` that started sub-agents (Claude Code's Task): their sessions in scope,
   * oldest first. Absent when there are none.
   */
  subAgents?: SessionSummary[];
}

/** A fork in a lineage tree. */
export interface LineageNode {
  session: SessionSummary;
  /** Seq of the parent where this session branches off. */
  forkSeq: number;
  children: LineageNode[];
}

/** What {@link SessionQueryEngine.traceLineage} returns. */
export interface Lineage {
  session: SessionSummary;
  /**
   * Parent, grandparent, … nearest first, each with the seq (in that ancestor) where the line
   * below it branches off. Stops at the first ancestor that is missing or out of scope.
   */
  ancestors: Array<{ session: SessionSummary; forkSeq: number }>;
  /** Forks of this session, recursively, oldest first at each level. */
  descendants: LineageNode[];
  /**
   * For a sub-agent: the session (in scope) whose tool call started it, and that call. Absent
   * otherwise.
   */
  spawnedBy?: SubAgentLink;
  /** The sub-agents this session started (in scope), by the call's seq. Absent when none. */
  subAgents?: SubAgentLink[];
}

/**
 * Read-only questions about past sessions. Every operation takes a {@link QueryScope} first; a
 * session outside it is indistinguishable from a missing one (`SessionNotFoundError`).
 *
 * Common rules:
 * - Inputs are validated; bad input throws `InvalidQueryError` naming the field. A malformed
 *   session id is an `InvalidQueryError` too, never a path.
 * - Paging: `limit` defaults to 20 and is capped at 200. Cursors are opaque and tied to the query
 *   they came from; reusing one with another query throws `InvalidQueryError` (`cursor`). Paging
 *   newest-first or by `createdAt` is stable while events are appended: no item is returned
 *   twice, none that existed when the first page was read is skipped. (Ordering by `updatedAt`
 *   can skip a session that moves to the top because it was updated meanwhile.)
 * - Every returned object is a copy: mutating it changes nothing inside the engine.
 */
export interface SessionQueryEngine {
  /**
   * Sessions whose first user message or cwd contain every word of `text` (all sessions when
   * there is no text), newest first by `orderBy`.
   */
  searchSessions(scope: QueryScope, query?: SessionSearchQuery): Promise<Page<SessionSummary>>;
  /**
   * Events matching every filter. Text covers message content, tool names and arguments, tool
   * outputs, compaction summaries, goals and error messages. Ordered newest first (by `ts`, then
   * seq) unless `order` says otherwise. A fork's parent prefix is searched as part of the parent.
   */
  searchEvents(scope: QueryScope, query: EventSearchQuery): Promise<Page<EventHit>>;
  /** Sessions newest first by `orderBy` (`updatedAt` default), optionally by status. */
  listSessions(scope: QueryScope, options?: ListSessionsOptions): Promise<Page<SessionSummary>>;
  /**
   * The session as of the call, replay-validated (forks include their parent prefix). Never a
   * raw log.
   *
   * @throws SessionNotFoundError when missing or out of scope.
   * @throws EventLogCorruptError when the log (or an ancestor's) is damaged; its summary then says
   * `damaged`.
   */
  readSession(scope: QueryScope, sessionId: string): Promise<Session>;
  /**
   * The event at `seq` (a fork may trace into its parent prefix), its replacement chain and the
   * events citing it.
   *
   * @throws SessionNotFoundError, EventLogCorruptError as `readSession`.
   * @throws EventNotFoundError when the session has no such seq.
   */
  traceEvent(scope: QueryScope, sessionId: string, seq: number): Promise<EventTrace>;
  /** Fork ancestors and descendants, within the scope. @throws SessionNotFoundError */
  traceLineage(scope: QueryScope, sessionId: string): Promise<Lineage>;
}
