/**
 * What the three backends (memory, SQLite, PostgreSQL) share: every public operation validates
 * its arguments the same way (`parseScope`, `normalize*Query`, `parseSessionId`, `parseSeq`), and
 * tracing an event and drawing a lineage are built the same way from a read session and from
 * summaries. A backend implements the {@link QueryBackend} questions on validated input;
 * {@link queryEngine} turns it into a {@link SessionQueryEngine}.
 */
import type { Session } from "@tapedeck/session";
import { SessionNotFoundError } from "@tapedeck/session/core";
import {
  type NormalizedEventQuery,
  type NormalizedSessionQuery,
  normalizeEventQuery,
  normalizeSessionQuery,
} from "./normalize-query";
import type { EventHit, Page, SessionQueryEngine, SessionSummary } from "./query-engine";
import { type ParsedScope, parseScope, parseSeq, parseSessionId } from "./query-schema";
import { buildLineage, traceSessionEvent } from "./trace";

type MaybePromise<T> = T | Promise<T>;

/** A backend's answers, on validated input. */
export interface QueryBackend {
  /** Sessions in scope matching the query, in its order, one page. */
  listSessions(
    scope: ParsedScope,
    query: NormalizedSessionQuery,
  ): MaybePromise<Page<SessionSummary>>;
  /** Events in scope matching the query, in its order, one page. */
  searchEvents(scope: ParsedScope, query: NormalizedEventQuery): MaybePromise<Page<EventHit>>;
  /** The session replayed. @throws SessionNotFoundError when missing or out of scope. */
  readSession(scope: ParsedScope, sessionId: string): MaybePromise<Session>;
  /** The summary of a session in scope, else `null`. */
  summary(scope: ParsedScope, sessionId: string): MaybePromise<SessionSummary | null>;
  /** The summaries of a session's forks in scope, in any order. */
  forks(scope: ParsedScope, sessionId: string): MaybePromise<SessionSummary[]>;
}

/** Oldest first, then by id: the order of a lineage's children. */
function byCreation(a: SessionSummary, b: SessionSummary): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The {@link SessionQueryEngine} over a backend. */
export function queryEngine(backend: QueryBackend): SessionQueryEngine {
  const engine: SessionQueryEngine = {
    async searchSessions(scope, query = {}) {
      return backend.listSessions(parseScope(scope), normalizeSessionQuery(query, true));
    },

    async listSessions(scope, options = {}) {
      return backend.listSessions(parseScope(scope), normalizeSessionQuery(options, false));
    },

    async searchEvents(scope, query) {
      return backend.searchEvents(parseScope(scope), normalizeEventQuery(query));
    },

    async readSession(scope, sessionId) {
      return backend.readSession(parseScope(scope), parseSessionId(sessionId));
    },

    async traceEvent(scope, sessionId, seq) {
      const parsedSeq = parseSeq(seq);
      return traceSessionEvent(await engine.readSession(scope, sessionId), parsedSeq);
    },

    async traceLineage(scope, sessionId) {
      const parsedScope = parseScope(scope);
      const id = parseSessionId(sessionId);
      const summary = await backend.summary(parsedScope, id);
      if (summary === null) throw new SessionNotFoundError(id);
      return buildLineage(summary, {
        summary: async (parentId) => backend.summary(parsedScope, parentId),
        children: async (parentId) => (await backend.forks(parsedScope, parentId)).sort(byCreation),
      });
    },
  };
  return engine;
}
