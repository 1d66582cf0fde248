/**
 * Pages of one session for the viewer (`GET /api/sessions/:id/page`): the last page of events on
 * open, earlier pages as the user scrolls up, the page holding a seq for a deep link. A page ends
 * where the next one (or the log) starts and begins at a `turn/start`, so the timeline groups it
 * as it would the whole session.
 *
 * Two sources, one answer. When the SQLite index holds the log undamaged and unchanged up to a
 * byte offset (`SqliteQueryEngine.indexedLog`), a page is read backwards from the end of what the
 * index checked, by position, and costs its own bytes: no replay, no read from the start. Anything
 * else (a fork, whose prefix lives in its parent; damage of any kind; a file replaced or shrunk
 * since the sync; the in-memory or a team index; a page whose bytes do not match what the index
 * recorded) is answered from a replay of the whole log, which refuses a damaged log with its
 * precise error. See `architecture/web.md` ("Paged sessions").
 */
import type { SessionIndex } from "@tapedeck/host";
import { splitChunks } from "@tapedeck/html-export/render";
import {
  EventLogCorruptError,
  parseEventLine,
  parseHeaderLine,
  type Session,
  type SessionEvent,
  type SessionHeader,
} from "@tapedeck/session";
import { promptOf } from "@tapedeck/session-query";
import type { IndexedLog } from "@tapedeck/session-query/sqlite";
import type { LogReader, SessionStore } from "@tapedeck/session-store";

/** Events per page when the page does not say (before extending back to a turn's start). */
export const DEFAULT_PAGE_EVENTS = 400;

/** A page extends back at most this many events past its limit to start at a `turn/start`. */
const TURN_EXTENSION = 4_000;

/** Bytes of the first step when reading a log backwards; each further step reads twice as many. */
export const FIRST_CHUNK_BYTES = 64 * 1024;
const MAX_CHUNK_BYTES = 4 * 1024 * 1024;

/** What page to answer. */
export interface PageRequest {
  /** Events wanted (the page then extends back to the start of its first turn). */
  limit: number;
  /** The page before the event with this seq (and, from a page read by position, its offset). */
  before?: { seq: number; offset?: number | undefined } | undefined;
  /** The page must reach back to this seq (a deep link): every event from its turn on. */
  from?: number | undefined;
}

/** The totals of the session up to the end of the last page (the page shows them in its header). */
export interface PageTotals {
  /** Events of the log, token chunks included. */
  eventCount: number;
  turnCount: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  goal: string | null;
  lastSeq: number;
  /** The session's own first user message (after a fork's parent prefix), cut to 1,000 characters: its title. */
  firstPrompt: string | null;
}

/** Longest first prompt a page carries (the page shows its first 120 characters). */
const PROMPT_LENGTH = 1_000;

function cutPrompt(prompt: string | null): string | null {
  return prompt === null ? null : prompt.slice(0, PROMPT_LENGTH);
}

/** One page: `GET /api/sessions/:id/page`'s answer. */
export interface SessionPage {
  header: SessionHeader;
  /** The page's events without token chunks (their text is in `streamedText`), in seq order. */
  events: SessionEvent[];
  /** requestId → the text streamed for it within the page. */
  streamedText: Array<[string, string]>;
  /** seq of the page's first event (chunks counted); 1 when nothing comes before it. */
  firstSeq: number;
  /** seq of the page's last event. */
  lastSeq: number;
  /**
   * Byte offsets of the page's first line and just after its last one when it was read by
   * position (ask for the page before it with `beforeOffset`; the session stream continues from
   * `end`); `null` when it came from a replay.
   */
  start: number | null;
  end: number | null;
  totals: PageTotals;
  /** Where the page came from: read by position from what the index checked, or a replay. */
  source: "index" | "replay";
}

/** The part of a SQLite index this module uses. */
type IndexedLogs = { indexedLog(sessionId: string): IndexedLog | null };

/** The index's per-log positions, when the index is the SQLite one. */
function indexedLogsOf(index: SessionIndex): IndexedLogs | null {
  const engine = index.engine as Partial<IndexedLogs>;
  return typeof engine.indexedLog === "function" ? (engine as IndexedLogs) : null;
}

/** True when the walk back from the end may stop before `event` (`count` events taken so far). */
function pageStartsAt(event: SessionEvent, count: number, request: PageRequest): boolean {
  if (request.from !== undefined && event.seq > request.from) return false;
  const wanted = request.from === undefined ? request.limit : 1;
  if (count < wanted) return false;
  return event.type === "turn/start" || count >= wanted + TURN_EXTENSION;
}

/** A read by position that does not match what the index recorded: answer from a replay. */
class PageMismatch extends Error {}

/** An event line read backwards, with its position. */
interface PositionedEvent {
  event: SessionEvent;
  offset: number;
}

/**
 * The events that end at byte `end`, read backwards in chunks down to `floor` (the end of the
 * header) until `request` is satisfied; each line is schema-validated as it is read.
 */
function readBackwards(
  reader: LogReader,
  floor: number,
  end: number,
  request: PageRequest,
): PositionedEvent[] {
  const taken: PositionedEvent[] = [];
  let position = end;
  let carry: Buffer = Buffer.alloc(0);
  let step = FIRST_CHUNK_BYTES;
  for (;;) {
    const from = Math.max(floor, position - step);
    step = Math.min(MAX_CHUNK_BYTES, step * 2);
    const chunk = reader.readAt(from, position - from);
    if (chunk === null) throw new PageMismatch("the log is shorter than the index says");
    const bytes = carry.length === 0 ? chunk : Buffer.concat([chunk, carry]);
    // Lines end with "\n"; the piece before the first one is whole only at the floor.
    let lineEnd = bytes.length - 1;
    if (bytes[lineEnd] !== 0x0a) throw new PageMismatch("no line ends where the page ends");
    for (;;) {
      const newline = bytes.lastIndexOf(0x0a, lineEnd - 1);
      if (newline < 0 && from > floor) break;
      const lineStart = newline + 1;
      const offset = from + lineStart;
      // A payload kept in a blob is read back: the page shows what the whole view does.
      const event = reader.withPayload(
        parseEventLine(bytes.toString("utf8", lineStart, lineEnd), { offset }),
      );
      taken.push({ event, offset });
      if (pageStartsAt(event, taken.length, request) || offset === floor) {
        return taken.reverse();
      }
      lineEnd = newline;
    }
    carry = bytes.subarray(0, lineEnd + 1);
    position = from;
  }
}

/** The page read by position from what the index checked, or `null` when it cannot be. */
function pageByPosition(
  store: SessionStore,
  logs: IndexedLogs,
  id: string,
  request: PageRequest,
): SessionPage | null {
  const indexed = logs.indexedLog(id);
  const entry = store.entry(id);
  if (indexed === null || indexed.damage !== null || entry === null) return null;
  if (entry.header === undefined || entry.header.parent !== undefined) return null;
  // The same file (inode, header) that has only grown since the index read it.
  if (entry.inode !== indexed.inode || entry.headerText !== indexed.headerText) return null;
  if (entry.size < indexed.offset) return null;
  const floor = entry.headerEnd;
  const end = request.before === undefined ? indexed.offset : request.before.offset;
  if (end === undefined || end < floor || end > indexed.offset) return null;
  const lastSeq = request.before === undefined ? indexed.aggregate.lastSeq : request.before.seq - 1;
  const reader = store.openLogReader(id);
  if (reader === null) return null;
  try {
    if (end === floor) return null;
    const read = readBackwards(reader, floor, end, request);
    // Every seq in order, ending where the index (or the page after) says: the bytes are the
    // ones the index checked.
    read.forEach(({ event }, index) => {
      const expected = lastSeq - (read.length - 1 - index);
      if (event.seq !== expected) throw new PageMismatch(`seq ${event.seq}, expected ${expected}`);
    });
    const first = read[0];
    if (first === undefined || (first.offset === floor && first.event.seq !== 1)) return null;
    const goal = indexed.lastGoal === null ? null : goalAt(reader, indexed.lastGoal);
    const { aggregate } = indexed;
    return {
      header: parseHeaderLine(indexed.headerText),
      ...splitChunks(read.map(({ event }) => event)),
      firstSeq: first.event.seq,
      lastSeq,
      start: first.offset,
      end,
      totals: {
        eventCount: aggregate.eventCount,
        turnCount: aggregate.turnCount,
        usage: {
          inputTokens: aggregate.inputTokens,
          outputTokens: aggregate.outputTokens,
          cachedInputTokens: aggregate.cachedInputTokens,
        },
        goal,
        lastSeq: aggregate.lastSeq,
        firstPrompt: cutPrompt(aggregate.firstPrompt),
      },
      source: "index",
    };
  } catch (error) {
    if (error instanceof PageMismatch) return null;
    // A line that does not parse is damage the index did not record: the replay reports it.
    if (EventLogCorruptError.isInstance(error)) return null;
    throw error;
  } finally {
    reader.close();
  }
}

/** The goal of the last `goal/set` event, read by its position. */
function goalAt(reader: LogReader, at: { offset: number; length: number }): string | null {
  const bytes = reader.readAt(at.offset, at.length);
  if (bytes === null) throw new PageMismatch("the goal event is gone");
  const event = parseEventLine(bytes.toString("utf8"), { offset: at.offset });
  if (event.type !== "goal/set") throw new PageMismatch("no goal event at its position");
  return (event as { goal: string | null }).goal;
}

/** The page cut from a replayed session (every event held; positions unknown). */
export function pageOfSession(session: Session, request: PageRequest): SessionPage {
  const events = session.events;
  let endIndex = events.length;
  if (request.before !== undefined) {
    const beforeSeq = request.before.seq;
    endIndex = events.findIndex((event) => event.seq >= beforeSeq);
    if (endIndex < 0) endIndex = events.length;
  }
  let startIndex = endIndex;
  while (startIndex > 0) {
    startIndex -= 1;
    const event = events[startIndex] as SessionEvent;
    if (pageStartsAt(event, endIndex - startIndex, request)) break;
  }
  const page = events.slice(startIndex, endIndex);
  return {
    header: session.header,
    ...splitChunks(page),
    firstSeq: page[0]?.seq ?? request.before?.seq ?? session.lastSeq + 1,
    lastSeq: page.at(-1)?.seq ?? (request.before?.seq ?? session.lastSeq + 1) - 1,
    start: null,
    end: null,
    totals: {
      eventCount: events.length,
      turnCount: events.filter((event) => event.type === "turn/start").length,
      usage: { ...session.usage, cachedInputTokens: session.usage.cachedInputTokens ?? 0 },
      goal: session.goal,
      lastSeq: session.lastSeq,
      firstPrompt: cutPrompt(ownFirstPrompt(session)),
    },
    source: "replay",
  };
}

/** The first user message after a fork's parent prefix (the index's `firstPrompt`). */
function ownFirstPrompt(session: Session): string | null {
  const from = session.header.parent?.seq ?? 0;
  for (const event of session.events) {
    if (event.seq > from && event.type === "message" && event.role === "user") {
      return promptOf(event);
    }
  }
  return null;
}

/**
 * Answers one page: by position from what the SQLite index checked (synced first) when it can,
 * else from `replay` (the whole log replayed: a damaged log throws its precise error).
 */
export async function readPage(
  { store, index }: { store: SessionStore; index: SessionIndex },
  id: string,
  request: PageRequest,
  replay: (id: string) => Promise<Session>,
): Promise<SessionPage> {
  const logs = indexedLogsOf(index);
  if (logs !== null) {
    await index.sync();
    const page = pageByPosition(store, logs, id, request);
    if (page !== null) return page;
  }
  return pageOfSession(await replay(id), request);
}
