import { closeSync, existsSync, mkdirSync, openSync, renameSync } from "node:fs";
import path from "node:path";
import type { SessionQueryEngine } from "@tapedeck/session-query";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "@tapedeck/session-query/sqlite";
import type { SessionStore } from "@tapedeck/session-store";

/** Path of the search index in a Tapedeck home. */
export function indexPath(home: string): string {
  return path.join(home, "index.sqlite");
}

/** SQLite's answers for a file that is not (or no longer) a readable database. */
const DAMAGED_INDEX_CODES = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

/** Where a line for the person goes (stderr: stdout may carry JSON-RPC). */
export type Warn = (text: string) => void;

const toStderr: Warn = (text) => {
  process.stderr.write(text);
};

/**
 * Opens (creating if needed) the SQLite index of the store's logs. The index is derived from the
 * logs, so a damaged index file is moved aside (`index.sqlite.damaged-<time>`, with its `-wal` and
 * `-shm`) and a new one is built instead, with a line through `warn`.
 */
export function openIndex(store: SessionStore, warn: Warn = toStderr): SqliteQueryEngine {
  mkdirSync(store.home, { recursive: true, mode: 0o700 });
  const file = indexPath(store.home);
  // Created private before SQLite opens it (its -wal and -shm files take the same mode).
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  try {
    return createSqliteQueryEngine({ path: file, store });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !DAMAGED_INDEX_CODES.has(code)) throw error;
    const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    for (const suffix of ["", "-wal", "-shm"]) {
      if (existsSync(`${file}${suffix}`)) renameSync(`${file}${suffix}`, `${aside}${suffix}`);
    }
    warn(
      `tapedeck: the search index ${file} was damaged (${(error as Error).message}); moved it to ${aside} and rebuilding it from the logs.\n`,
    );
    return createSqliteQueryEngine({ path: file, store });
  }
}

/**
 * A query engine that opens the index on first use and syncs it (only new bytes) before every
 * query, so answers always include the latest runs.
 */
export function syncedEngine(
  store: SessionStore,
  warn: Warn = toStderr,
): SessionQueryEngine & { close(): void } {
  let engine: SqliteQueryEngine | undefined;
  const ready = async (): Promise<SqliteQueryEngine> => {
    engine ??= openIndex(store, warn);
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
