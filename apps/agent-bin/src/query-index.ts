import { mkdirSync } from "node:fs";
import path from "node:path";
import type { SessionQueryEngine } from "@tapedeck/session-query";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "@tapedeck/session-query/sqlite";
import type { SessionStore } from "@tapedeck/session-store";

/** Path of the search index in a Tapedeck home. */
export function indexPath(home: string): string {
  return path.join(home, "index.sqlite");
}

/** Opens (creating if needed) the SQLite index of the store's logs. */
export function openIndex(store: SessionStore): SqliteQueryEngine {
  mkdirSync(store.home, { recursive: true });
  return createSqliteQueryEngine({ path: indexPath(store.home), store });
}

/**
 * A query engine that opens the index on first use and syncs it (only new bytes) before every
 * query, so answers always include the latest runs.
 */
export function syncedEngine(store: SessionStore): SessionQueryEngine & { close(): void } {
  let engine: SqliteQueryEngine | undefined;
  const ready = async (): Promise<SqliteQueryEngine> => {
    engine ??= openIndex(store);
    await engine.sync();
    return engine;
  };
  return {
    searchSessions: async (scope, query) => (await ready()).searchSessions(scope, query),
    searchEvents: async (scope, query) => (await ready()).searchEvents(scope, query),
    listSessions: async (scope, options) => (await ready()).listSessions(scope, options),
    readSession: async (scope, sessionId) => (await ready()).readSession(scope, sessionId),
    traceEvent: async (scope, sessionId, seq) => (await ready()).traceEvent(scope, sessionId, seq),
    traceLineage: async (scope, sessionId) => (await ready()).traceLineage(scope, sessionId),
    close: () => engine?.close(),
  };
}
