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
import type {
  EventHit,
  Lineage,
  Page,
  SessionQueryEngine,
  SessionSummary,
  SubAgentLink,
} from "./query-engine";
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
  /**
   * The summaries of the sessions in scope whose header names `sessionId` in `spawnedBy` (the
   * sub-agents its tool calls started), in any order.
   */
  spawned(scope: ParsedScope, sessionId: string): MaybePromise<SessionSummary[]>;
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
      const trace = traceSessionEvent(await engine.readSession(scope, sessionId), parsedSeq);
      if (trace.event.type !== "function_call") return trace;
      // The sub-agents this call started live in sessions of their own (header `spawnedBy`).
      const spawned = (await backend.spawned(parseScope(scope), trace.sessionId))
        .filter((child) => child.spawnedBy?.seq === parsedSeq)
        .sort(byCreation);
      return spawned.length === 0 ? trace : { ...trace, subAgents: spawned };
    },

    async traceLineage(scope, sessionId) {
      const parsedScope = parseScope(scope);
      const id = parseSessionId(sessionId);
      const summary = await backend.summary(parsedScope, id);
      if (summary === null) throw new SessionNotFoundError(id);
      const lineage = await buildLineage(summary, {
        summary: async (parentId) => backend.summary(parsedScope, parentId),
        children: async (parentId) => (await backend.forks(parsedScope, parentId)).sort(byCreation),
      });
      return withSubAgents(lineage, await subAgentLinks(backend, parsedScope, summary));
    },
  };
  return engine;
}

/** Both ends of a session's sub-agent links: who started it, and whom it started. */
async function subAgentLinks(
  backend: QueryBackend,
  scope: ParsedScope,
  summary: SessionSummary,
): Promise<{ spawnedBy?: SubAgentLink; subAgents: SubAgentLink[] }> {
  const subAgents = (await backend.spawned(scope, summary.id))
    .flatMap((child) =>
      child.spawnedBy === undefined
        ? []
        : [{ session: child, seq: child.spawnedBy.seq, callId: child.spawnedBy.callId }],
    )
    .sort((a, b) => a.seq - b.seq || byCreation(a.session, b.session));
  const ref = summary.spawnedBy;
  if (ref === undefined || ref.sessionId === summary.id) return { subAgents };
  const spawner = await backend.summary(scope, ref.sessionId);
  if (spawner === null) return { subAgents };
  return { spawnedBy: { session: spawner, seq: ref.seq, callId: ref.callId }, subAgents };
}

/** The lineage with its sub-agent links, each only when there is one. */
function withSubAgents(
  lineage: Lineage,
  links: { spawnedBy?: SubAgentLink; subAgents: SubAgentLink[] },
): Lineage {
  const result: Lineage = { ...lineage };
  if (links.spawnedBy !== undefined) result.spawnedBy = links.spawnedBy;
  if (links.subAgents.length > 0) result.subAgents = links.subAgents;
  return result;
}
