import { closeSync, existsSync, openSync, renameSync, rmSync } from "node:fs";
import { StorageFaultError, toStorageFault } from "@tapedeck/session";
import type { SessionQueryEngine } from "@tapedeck/session-query";
import {
  createSqliteQueryEngine,
  type SqliteQueryEngine,
  type SyncProgress,
} from "@tapedeck/session-query/sqlite";
import type { SessionStore } from "@tapedeck/session-store";
import { makeDirectories } from "@tapedeck/session-store/folder";
import { homeReadOnly } from "./home-access";
import { toIndexDriverError } from "./index-driver";
import { indexPath } from "./index-path";
import { createMemoryIndex, type SessionIndex } from "./memory-index";

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
  const file = indexPath(store.home);
  let created = false;
  try {
    makeDirectories(store.home);
    // Created private before SQLite opens it (its -wal and -shm files take the same mode).
    if (!existsSync(file)) {
      closeSync(openSync(file, "a", 0o600));
      created = true;
    }
    return openOrRebuild(store, file, warn);
  } catch (error) {
    // A home that is full or read-only keeps no empty index behind.
    if (created)
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    throw indexFault(error, store);
  }
}

/**
 * A disk fault of the index (`SQLITE_FULL`, `EROFS`…) as a `StorageFaultError`, a driver this
 * Node.js cannot load as an `IndexDriverError`, else `error`.
 */
function indexFault(error: unknown, store: SessionStore): unknown {
  const fault = toStorageFault(error, { path: indexPath(store.home), home: store.home });
  if (fault !== undefined) return fault;
  const driver = toIndexDriverError(error);
  if (driver !== undefined) return driver;
  // SQLite cannot open a WAL database it may not write; on a read-only home that is the cause.
  if ((error as { code?: unknown }).code === "SQLITE_CANTOPEN")
    return homeReadOnly(store.home) ?? error;
  return error;
}

function openOrRebuild(store: SessionStore, file: string, warn: Warn): SqliteQueryEngine {
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
 * When a sync before a query says what it is doing: once it has run `ms` with at least
 * `sessions` logs to read. A first command on a home with history, or the first after an index
 * upgrade (a new schema is rebuilt from the logs), reads every log: ≈ 10 s for 2,000 sessions,
 * minutes for 20,000, which must not look like a hang. Everyday syncs read a few sessions and
 * stay silent (and a test home's never reaches the session count, however loaded the machine).
 */
export interface SlowSyncNotice {
  sessions: number;
  ms: number;
}

const defaultSlowSync: SlowSyncNotice = { sessions: 100, ms: 1000 };

/**
 * `engine.sync()`, with a line through `warn` when it turns out slow (see {@link SlowSyncNotice})
 * and one when it ends.
 */
async function syncSaying(
  engine: SqliteQueryEngine,
  warn: Warn,
  slow: SlowSyncNotice,
): Promise<void> {
  const started = Date.now();
  let said = false;
  const onProgress = (progress: SyncProgress) => {
    if (said || progress.sessionsDone === progress.sessionsTotal) return;
    if (progress.sessionsTotal < slow.sessions || Date.now() - started < slow.ms) return;
    said = true;
    warn(
      `tapedeck: updating the search index: ${progress.sessionsTotal.toLocaleString("en-US")} sessions to read (a new or upgraded index reads every log once)…\n`,
    );
  };
  const report = await engine.sync({ onProgress });
  if (said) {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    warn(
      `tapedeck: search index up to date (${report.eventsIndexed.toLocaleString("en-US")} events in ${seconds} s).\n`,
    );
  }
}

/**
 * A query engine that opens the index on first use and syncs it (only new bytes) before every
 * query, so answers always include the latest runs; a sync that reads many logs says so through
 * `warn` (`slowSync`). When the index cannot be written (a read-only or full home) it says so once
 * through `warn` and answers from the logs instead (`createMemoryIndex`, which writes nothing):
 * reading commands keep working.
 */
export function syncedEngine(
  store: SessionStore,
  warn: Warn = toStderr,
  slowSync: SlowSyncNotice = defaultSlowSync,
): SessionQueryEngine & { close(): void } {
  let engine: SqliteQueryEngine | undefined;
  let fromLogs: SessionIndex | undefined;
  const readLogs = (fault: StorageFaultError): SessionIndex => {
    warn(`tapedeck: ${fault.message}; reading the logs directly, without the search index.\n`);
    fromLogs = createMemoryIndex(store);
    return fromLogs;
  };
  const indexed = async (): Promise<SessionQueryEngine | undefined> => {
    try {
      engine ??= openIndex(store, warn);
      await syncSaying(engine, warn, slowSync);
      return engine;
    } catch (error) {
      const fault = indexFault(error, store);
      if (!StorageFaultError.isInstance(fault)) throw fault;
      engine?.close();
      engine = undefined;
      readLogs(fault);
      return undefined;
    }
  };
  const ready = async (): Promise<SessionQueryEngine> => {
    if (fromLogs === undefined && engine === undefined) {
      const readOnly = homeReadOnly(store.home);
      if (readOnly !== undefined) readLogs(readOnly);
    }
    if (fromLogs === undefined) {
      const answer = await indexed();
      if (answer !== undefined) return answer;
    }
    const index = fromLogs as SessionIndex;
    await index.sync();
    return index.engine;
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
