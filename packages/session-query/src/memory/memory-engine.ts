/**
 * The in-memory backend: no native code, no I/O. Logs are handed in whole with `ingest`; queries
 * scan them. For tests, small tools and the browser; the SQLite backend is the one that scales.
 */
import {
  analyzeEventLog,
  EventLogCorruptError,
  emptyInvariantState,
  type InvariantState,
  invariantError,
  isInvariantViolation,
  parseEvent,
  parseHeader,
  replayEvents,
  type Session,
  type SessionEvent,
  type SessionHeader,
  SessionNotFoundError,
  stepInvariants,
} from "@tapedeck/session";
import { IndexValidator } from "../index-validator";
import {
  eventCursor,
  eventPosition,
  type NormalizedEventQuery,
  type NormalizedSessionQuery,
  sessionCursor,
  sessionPosition,
} from "../normalize-query";
import { queryEngine } from "../query-backend";
import type { EventHit, Page, SessionQueryEngine, SessionSummary } from "../query-engine";
import { type ParsedScope, scopeAllows } from "../query-schema";
import { snippet } from "../snippet";
import {
  addEvent,
  type Damage,
  emptyAggregate,
  type SessionAggregate,
  toSummary,
} from "../summary";
import { countMatches, eventText, type MatchableText, matchable } from "../text";

/** The in-memory engine: a {@link SessionQueryEngine} you feed with whole logs. */
export interface MemoryQueryEngine extends SessionQueryEngine {
  /**
   * Adds a session's log (header and its own events, in file order), replacing any earlier log
   * with the same id. The values are copied. Header and events are schema-validated
   * (`EventLogCorruptError` when they are not log lines at all); every invariant is checked as it
   * is added (a fork against its parent's prefix, when the parent was added first), and only the
   * events before the first damage are served.
   */
  ingest(header: SessionHeader, events: readonly SessionEvent[]): void;
  /** Forgets a session (as when its log is moved to the trash). No-op for an unknown id. */
  remove(sessionId: string): void;
}

interface IndexedEvent {
  event: SessionEvent;
  ms: number;
  text: string;
  matchable: MatchableText | null;
  toolName: string | null;
  current: boolean;
}

interface SessionRecord {
  header: SessionHeader;
  /** The events served (searched, counted): those before the first damage. */
  events: IndexedEvent[];
  /** Every event of the log, as given (replayed by `readSession`, which refuses the damage). */
  log: SessionEvent[];
  aggregate: SessionAggregate;
  damage: Damage | null;
}

const surfaceTypes = new Set(["message", "function_call", "function_call_output", "compaction"]);

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The sessions an in-memory engine holds, with their forks by parent, and what each query needs
 * of them (scope, summaries, replay, a fork's prefix state).
 */
class HeldSessions {
  readonly records = new Map<string, SessionRecord>();
  /** parent id → ids of its forks, kept by ingest/remove so counts are not a scan per session. */
  readonly forks = new Map<string, Set<string>>();

  visible(scope: ParsedScope, id: string): SessionRecord | null {
    const record = this.records.get(id);
    return record !== undefined && scopeAllows(scope, record.header.workspaceId) ? record : null;
  }

  unlinkFork(record: SessionRecord | undefined): void {
    const parentId = record?.header.parent?.sessionId;
    if (record !== undefined && parentId !== undefined) {
      this.forks.get(parentId)?.delete(record.header.sessionId);
    }
  }

  /** Direct forks of `id` in scope, oldest first. */
  forksOf(scope: ParsedScope, id: string): SessionRecord[] {
    const records: SessionRecord[] = [];
    for (const childId of this.forks.get(id) ?? []) {
      const child = this.records.get(childId);
      if (child !== undefined && scopeAllows(scope, child.header.workspaceId)) records.push(child);
    }
    return records;
  }

  summaryOf(scope: ParsedScope, record: SessionRecord): SessionSummary {
    return toSummary(
      record.header,
      record.aggregate,
      this.forksOf(scope, record.header.sessionId).length,
      record.damage,
    );
  }

  toolNameOf(header: SessionHeader, callNames: Map<string, string>, callId: string): string | null {
    const own = callNames.get(callId);
    if (own !== undefined) return own;
    const parent =
      header.parent === undefined ? undefined : this.records.get(header.parent.sessionId);
    for (const indexed of parent?.events ?? []) {
      if (indexed.event.type === "function_call" && indexed.event.callId === callId) {
        return indexed.event.name;
      }
    }
    return null;
  }

  /**
   * The invariant state of a fork's parent at `parent.seq` (see `forkPrefixState`), from the
   * ancestors held here; `null` when one is not held.
   */
  prefixState(header: SessionHeader, depth = 0): InvariantState | EventLogCorruptError | null {
    const parent = header.parent;
    if (parent === undefined) return emptyInvariantState();
    const record = this.records.get(parent.sessionId);
    if (record === undefined || depth > 1000) return null;
    const state = this.prefixState(record.header, depth + 1);
    if (state === null || EventLogCorruptError.isInstance(state)) return state;
    for (const event of record.log) {
      if (event.seq > parent.seq) break;
      const next = stepInvariants(state, event);
      if (isInvariantViolation(next)) return invariantError(next, event, parent.sessionId);
    }
    if (state.last < parent.seq && record.damage !== null) {
      // The parent is damaged before the branch point: so is the fork.
      return new EventLogCorruptError(
        record.damage.code as EventLogCorruptError["code"],
        `its parent ${parent.sessionId} is damaged: ${record.damage.message}`,
        { sessionId: header.sessionId },
      );
    }
    return state;
  }

  replay(record: SessionRecord, depth = 0): Session {
    const { header } = record;
    let parentEvents: SessionEvent[] | undefined;
    if (header.parent !== undefined && depth < 1000) {
      const parent = this.records.get(header.parent.sessionId);
      if (parent !== undefined) parentEvents = [...this.replay(parent, depth + 1).events];
    }
    try {
      return replayEvents(
        clone(header),
        record.log.map((event) => clone(event)),
        parentEvents === undefined ? {} : { parentEvents },
      );
    } catch (error) {
      if (EventLogCorruptError.isInstance(error) && record.damage === null) {
        record.damage = { code: error.code, message: error.message };
      }
      throw error;
    }
  }

  list(scope: ParsedScope, query: NormalizedSessionQuery): Page<SessionSummary> {
    const after = sessionPosition(query);
    const field = query.orderBy;
    const rows: SessionSummary[] = [];
    for (const record of this.records.values()) {
      if (!scopeAllows(scope, record.header.workspaceId)) continue;
      const summary = this.summaryOf(scope, record);
      if (query.status !== null && summary.status !== query.status) continue;
      const updated = Date.parse(summary.updatedAt);
      if (query.sinceMs !== null && updated < query.sinceMs) continue;
      if (query.untilMs !== null && updated >= query.untilMs) continue;
      if (query.words !== null) {
        const text = `${record.aggregate.firstPrompt ?? ""}\n${record.header.cwd}`;
        if (query.words.length === 0 || countMatches(matchable(text), query.words) === null)
          continue;
      }
      rows.push(summary);
    }
    const compare = (a: SessionSummary, b: SessionSummary) =>
      compareDesc(a[field], b[field]) || compareDesc(a.id, b.id);
    rows.sort(compare);
    const start =
      after === null
        ? 0
        : rows.findIndex(
            (row) =>
              compareDesc(row[field], after[0]) > 0 ||
              (row[field] === after[0] && row.id < after[1]),
          );
    const items = start < 0 ? [] : rows.slice(start, start + query.limit);
    const last = items[items.length - 1];
    const more = start >= 0 && start + query.limit < rows.length;
    return {
      items,
      nextCursor: more && last !== undefined ? sessionCursor(query, last[field], last.id) : null,
    };
  }

  ingest(header: SessionHeader, events: readonly SessionEvent[]): void {
    const parsedHeader = parseHeader(clone(header), { line: 1, offset: 0 });
    const aggregate = emptyAggregate(parsedHeader);
    const validator = IndexValidator.fromStart(parsedHeader, this.prefixState(parsedHeader));
    const indexed: IndexedEvent[] = [];
    const log: SessionEvent[] = [];
    const callNames = new Map<string, string>();
    events.forEach((raw, index) => {
      const event = parseEvent(clone(raw), { line: index + 2 });
      log.push(event);
      validator.check(event, { line: index + 2 });
      // The index serves only what replay accepts: nothing at or after the first damage.
      if (validator.damage !== null) return;
      addEvent(aggregate, event);
      if (event.type === "function_call") callNames.set(event.callId, event.name);
      const text = eventText(event);
      indexed.push({
        event,
        ms: Date.parse(event.ts),
        text,
        matchable: null,
        toolName: null,
        current: false,
      });
    });
    const current = new Set(analyzeEventLog(indexed.map((entry) => entry.event)).currentSeqs);
    for (const entry of indexed) {
      const { event } = entry;
      entry.current = surfaceTypes.has(event.type) && current.has(event.seq);
      if (event.type === "function_call") entry.toolName = event.name;
      else if (event.type === "function_call_output") {
        entry.toolName = this.toolNameOf(parsedHeader, callNames, event.callId);
      }
    }
    this.unlinkFork(this.records.get(parsedHeader.sessionId));
    if (parsedHeader.parent !== undefined) {
      const siblings = this.forks.get(parsedHeader.parent.sessionId) ?? new Set<string>();
      siblings.add(parsedHeader.sessionId);
      this.forks.set(parsedHeader.parent.sessionId, siblings);
    }
    this.records.set(parsedHeader.sessionId, {
      header: parsedHeader,
      events: indexed,
      log,
      aggregate,
      damage: validator.damage,
    });
  }

  remove(sessionId: string): void {
    this.unlinkFork(this.records.get(sessionId));
    this.records.delete(sessionId);
  }
}

/** Creates an empty in-memory engine. */
export function createMemoryQueryEngine(): MemoryQueryEngine {
  const held = new HeldSessions();
  return {
    ...queryEngine({
      listSessions: (scope, query) => held.list(scope, query),
      searchEvents: (scope, query) => searchEvents(held, scope, query),
      readSession(scope, id) {
        const record = held.visible(scope, id);
        if (record === null) throw new SessionNotFoundError(id);
        return held.replay(record);
      },
      summary(scope, id) {
        const record = held.visible(scope, id);
        return record === null ? null : held.summaryOf(scope, record);
      },
      forks: (scope, id) => held.forksOf(scope, id).map((child) => held.summaryOf(scope, child)),
      spawned: (scope, id) =>
        [...held.records.values()]
          .filter(
            (record) =>
              record.header.spawnedBy?.sessionId === id &&
              scopeAllows(scope, record.header.workspaceId),
          )
          .map((record) => held.summaryOf(scope, record)),
    }),
    ingest: (header, events) => held.ingest(header, events),
    remove: (sessionId) => held.remove(sessionId),
  };
}

function searchEvents(
  held: HeldSessions,
  scope: ParsedScope,
  query: NormalizedEventQuery,
): Page<EventHit> {
  const position = eventPosition(query);
  if (query.words !== null && query.words.length === 0) return { items: [], nextCursor: null };
  const snapshotMs =
    position !== null && "snapshotMs" in position ? position.snapshotMs : Number.POSITIVE_INFINITY;
  interface Candidate {
    record: SessionRecord;
    indexed: IndexedEvent;
    counts: number[] | null;
    score: number;
  }
  const candidates: Candidate[] = [];
  let newestMs = Number.NEGATIVE_INFINITY;
  for (const record of held.records.values()) {
    if (!scopeAllows(scope, record.header.workspaceId)) continue;
    if (query.sessionId !== null && record.header.sessionId !== query.sessionId) continue;
    for (const indexed of record.events) {
      if (!matchesFilters(indexed, query) || indexed.ms > snapshotMs) continue;
      let counts: number[] | null = null;
      if (query.words !== null) {
        if (indexed.text === "") continue;
        indexed.matchable ??= matchable(indexed.text);
        counts = countMatches(indexed.matchable, query.words);
        if (counts === null) continue;
      }
      newestMs = Math.max(newestMs, indexed.ms);
      candidates.push({ record, indexed, counts, score: 0 });
    }
  }
  if (query.order === "relevance" && query.words !== null) {
    scoreBm25(candidates, query.words.length);
    candidates.sort((a, b) => b.score - a.score || compareEvents(b, a));
    const offset = position !== null && "offset" in position ? position.offset : 0;
    const slice = candidates.slice(offset, offset + query.limit);
    const more = offset + query.limit < candidates.length;
    return {
      items: slice.map((candidate) => hitOf(scope, candidate, query, candidate.score)),
      nextCursor: more
        ? eventCursor(query, {
            offset: offset + query.limit,
            snapshotMs:
              position !== null && "snapshotMs" in position ? position.snapshotMs : newestMs,
          })
        : null,
    };
  }
  const direction = query.order === "oldest" ? 1 : -1;
  candidates.sort((a, b) => direction * compareEvents(a, b));
  let start = 0;
  if (position !== null && "key" in position) {
    const key = position.key;
    start = candidates.findIndex((candidate) => direction * compareKey(keyOf(candidate), key) > 0);
    if (start < 0) start = candidates.length;
  }
  const slice = candidates.slice(start, start + query.limit);
  const last = slice[slice.length - 1];
  const more = start + query.limit < candidates.length;
  return {
    items: slice.map((candidate) => hitOf(scope, candidate, query, undefined)),
    nextCursor: more && last !== undefined ? eventCursor(query, { key: keyOf(last) }) : null,
  };

  function hitOf(
    hitScope: ParsedScope,
    candidate: Candidate,
    hitQuery: NormalizedEventQuery,
    score: number | undefined,
  ): EventHit {
    const hit: EventHit = {
      sessionId: candidate.record.header.sessionId,
      event: clone(candidate.indexed.event),
      session: held.summaryOf(hitScope, candidate.record),
      snippet: snippet(candidate.indexed.text, hitQuery.words ?? [], hitQuery.markers),
    };
    if (score !== undefined) hit.score = score;
    return hit;
  }
}

function matchesFilters(indexed: IndexedEvent, query: NormalizedEventQuery): boolean {
  const { event } = indexed;
  if (query.types !== null && !query.types.includes(event.type)) return false;
  if (query.roles !== null && (event.type !== "message" || !query.roles.includes(event.role))) {
    return false;
  }
  if (query.toolName !== null && indexed.toolName !== query.toolName) return false;
  if (query.callId !== null && (event as { callId?: unknown }).callId !== query.callId)
    return false;
  if (query.sinceMs !== null && indexed.ms < query.sinceMs) return false;
  if (query.untilMs !== null && indexed.ms >= query.untilMs) return false;
  if (query.currentOnly && !indexed.current) return false;
  return true;
}

type OrderKey = (number | string)[];

function keyOf(candidate: { record: SessionRecord; indexed: IndexedEvent }): OrderKey {
  return [candidate.indexed.ms, candidate.indexed.event.seq, candidate.record.header.sessionId];
}

function compareKey(a: OrderKey, b: OrderKey): number {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const left = a[index];
    const right = b[index];
    if (left === right) continue;
    if (left === undefined) return -1;
    if (right === undefined) return 1;
    return left < right ? -1 : 1;
  }
  return 0;
}

/** Oldest first: ts, then seq, then session id. */
function compareEvents(
  a: { record: SessionRecord; indexed: IndexedEvent },
  b: { record: SessionRecord; indexed: IndexedEvent },
): number {
  return compareKey(keyOf(a), keyOf(b));
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

/**
 * The term-frequency part of Okapi BM25 (k1 = 1.2, b = 0.75): more occurrences in a shorter text
 * rank higher. (Every candidate contains every word, so the idf factor would not reorder them.)
 */
function scoreBm25(
  candidates: { indexed: IndexedEvent; counts: number[] | null; score: number }[],
  wordCount: number,
): void {
  const total = candidates.length;
  if (total === 0) return;
  const lengths = candidates.map((candidate) => candidate.indexed.text.split(/\s+/u).length);
  const average = lengths.reduce((sum, length) => sum + length, 0) / total;
  candidates.forEach((candidate, index) => {
    let score = 0;
    for (let word = 0; word < wordCount; word += 1) {
      const frequency = candidate.counts?.[word] ?? 0;
      score +=
        (frequency * 2.2) /
        (frequency + 1.2 * (0.25 + (0.75 * lengths[index]!) / Math.max(average, 1)));
    }
    candidate.score = score;
  });
}
