import * as fs from "node:fs";
/**
 * The SQLite FTS5 backend: an index over the store's logs, rebuildable at any time. Searches read
 * the index and then the matching lines from the logs by byte offset; `readSession` syncs the one
 * session and replays it through the store, so it always reflects the file as of the call.
 */
import type { Session } from "@tapedeck/session";
import { EventLogCorruptError, SessionNotFoundError } from "@tapedeck/session/core";
import Database from "better-sqlite3";
import { ftsMatch } from "../fts-query";
import { type NormalizedSessionQuery, sessionPage, sessionPosition } from "../normalize-query";
import { queryEngine } from "../query-backend";
import type { Page, SessionQueryEngine, SessionSummary } from "../query-engine";
import type { ParsedScope } from "../query-schema";
import type { SessionAggregate } from "../summary";
import { createEventSearch } from "./event-search";
import { HitCache } from "./hit-cache";
import { createIndexReads, type IndexReads, type SummaryRow } from "./index-reads";
import type { Indexer } from "./indexer";
import { prepareSchema } from "./schema";
import { emptySyncReport, nothingChanged, parseStored, savedChangeCursor } from "./stored";
import type { IndexedStore, SyncProgress, SyncReport } from "./sync-types";

/** Options of {@link createSqliteQueryEngine}. */
export interface SqliteQueryEngineOptions {
  /** Database file (created when missing), or `:memory:`. */
  path: string;
  /** The store whose logs are indexed (`createSessionStore({ home })`). */
  store: IndexedStore;
  /**
   * Merge the full-text index into one segment (FTS5 `optimize`) once this many events were
   * indexed since the last merge; default 50,000. Bulk ingestion leaves many segments behind and
   * a newest-first search must merge them all: one merge halved search latency here. `rebuild`
   * always merges.
   */
  optimizeAfterEvents?: number;
}

/** Options of {@link SqliteQueryEngine.sync} and {@link SqliteQueryEngine.rebuild}. */
export interface SyncOptions {
  /** Called after each session with new data, and once at the end. */
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Check every log against the index (the store's `scan()`), not only the sessions the change
   * journal names: for logs another program changed in place without a journal record
   * (`announceChange`). Reads only what changed, like any sync; costs a `stat` per log.
   */
  full?: boolean;
}

/** The SQLite engine: a {@link SessionQueryEngine} plus index maintenance. */
export interface SqliteQueryEngine extends SessionQueryEngine {
  /**
   * Brings the index up to date with the logs: ingests only bytes appended since the last sync,
   * re-ingests files that shrank or were replaced, drops sessions whose logs are gone. Searches and
   * lists reflect the last sync; `readSession` syncs its session itself. Concurrent calls queue.
   */
  sync(options?: SyncOptions): Promise<SyncReport>;
  /** Empties the index, ingests every log again (a full scan), merges it and checkpoints the WAL. */
  rebuild(options?: SyncOptions): Promise<SyncReport>;
  /** Bytes of the database file and of its write-ahead log now (0 for `:memory:`). */
  footprint(): { databaseBytes: number; walBytes: number };
  /** Closes the database. */
  close(): void;
  /**
   * What the index holds of one session's log as of the last sync, or `null` when it holds none:
   * a reader that trusts the index's check may serve the events before `offset` by position
   * instead of replaying the log (the session viewer's pages do; see `architecture/web.md`).
   */
  indexedLog(sessionId: string): IndexedLog | null;
}

/** One session's log as the index last read it (see {@link SqliteQueryEngine.indexedLog}). */
export interface IndexedLog {
  /** The header line as stored (the file's line 1). */
  headerText: string;
  /** Totals over the events indexed (`eventCount`, `turnCount`, `lastSeq`, tokens, …). */
  aggregate: SessionAggregate;
  /** The first damage found (`null`: none); nothing at or after it is indexed. */
  damage: { code: string; message: string } | null;
  /** Byte offset after the last event indexed, and the line number that follows it. */
  offset: number;
  line: number;
  /** The file's inode and size when it was last synced. */
  inode: number;
  size: number;
  /** Byte position of the last `goal/set` event indexed, or `null` when there is none. */
  lastGoal: { offset: number; length: number } | null;
}

/** Opens (creating if needed) an index at `path` over `store`'s logs. */
export function createSqliteQueryEngine(options: SqliteQueryEngineOptions): SqliteQueryEngine {
  const db = new Database(options.path);
  prepareSchema(db);
  const { store } = options;
  // The writer (and, through its replay, the log's zod schemas) is loaded by the first sync that
  // has work: a search on a fresh index never loads it (see `stored.ts`). `#index-writer` is
  // `./indexer`, or a stand-in under the `tapedeck-index-read-only` condition (package.json).
  let indexer: Promise<Indexer> | undefined;
  const writer = (): Promise<Indexer> =>
    (indexer ??= import("#index-writer").then(
      ({ Indexer }) => new Indexer(db, store, options.optimizeAfterEvents),
    ));
  const hitCache = new HitCache(store);
  const reads = createIndexReads(db);
  const { prepared, workspacesOf, forkCountSql, summaryOf, sessionInScope } = reads;
  const searchEvents = createEventSearch(reads, hitCache);

  const engine: SqliteQueryEngine = {
    ...queryEngine({
      listSessions: (scope, query) => listSessions(reads, scope, query),
      searchEvents,
      async readSession(scope, id): Promise<Session> {
        const indexer = await writer();
        const exists = await indexer.exclusive(() => indexer.syncOne(id));
        if (!exists || sessionInScope(scope, id) === null) throw new SessionNotFoundError(id);
        try {
          return await store.readSession(id);
        } catch (error) {
          if (EventLogCorruptError.isInstance(error)) {
            indexer.recordDamage(id, { code: error.code, message: error.message }, error.seq);
          }
          throw error;
        }
      },
      summary(scope, id) {
        const row = sessionInScope(scope, id);
        return row === null ? null : summaryOf(row);
      },
      forks(scope, id) {
        const workspaces = workspacesOf(scope);
        return prepared<SummaryRow>(
          `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s WHERE s.parent_id = ?${
            workspaces === null ? "" : ` AND s.workspace IN (${workspaces.join(",")})`
          }`,
        )
          .all(id)
          .map(summaryOf);
      },
      spawned(scope, id) {
        const workspaces = workspacesOf(scope);
        // The header as written (its line 1): a text match narrows, the parsed header decides.
        return prepared<SummaryRow>(
          `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s
           WHERE instr(s.header, '"spawnedBy"') > 0 AND instr(s.header, ?) > 0${
             workspaces === null ? "" : ` AND s.workspace IN (${workspaces.join(",")})`
           }`,
        )
          .all(id)
          .map(summaryOf)
          .filter((summary) => summary.spawnedBy?.sessionId === id);
      },
    }),

    async sync(syncOptions = {}) {
      // Until the writer is loaded nothing in this process writes: a fresh index is answered here.
      if (indexer === undefined && syncOptions.full !== true) {
        const saved = savedChangeCursor(db);
        if (nothingChanged(await store.changesSince(saved), saved)) return emptySyncReport();
      }
      const writing = await writer();
      const full = syncOptions.full === true;
      return writing.exclusive(() => writing.syncAll(syncOptions.onProgress, { full }));
    },

    async rebuild(syncOptions = {}) {
      const indexer = await writer();
      return indexer.exclusive(async () => {
        const optimizedBefore = indexer.merges.optimizeRuns;
        indexer.clear();
        const report = await indexer.syncAll(syncOptions.onProgress, { full: true });
        // syncAll merged already when it indexed enough; a small rebuild is merged here.
        if (indexer.merges.optimizeRuns === optimizedBefore) indexer.merges.optimize();
        // Leave no write-ahead log behind: the index should be one file of its final size.
        db.pragma("wal_checkpoint(TRUNCATE)");
        return report;
      });
    },

    indexedLog: (sessionId) => indexedLogOf(reads, sessionId),

    footprint() {
      const size = (path: string) => fs.statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      return { databaseBytes: size(options.path), walBytes: size(`${options.path}-wal`) };
    },

    close() {
      hitCache.clear();
      db.close();
    },
  };
  return engine;
}

/** A page of sessions in scope, in the query's order, from the sessions table (and its FTS). */
function listSessions(
  reads: IndexReads,
  scope: ParsedScope,
  query: NormalizedSessionQuery,
): Page<SessionSummary> {
  const { workspacesOf, prepared, forkCountSql, summaryOf } = reads;
  const after = sessionPosition(query);
  const workspaces = workspacesOf(scope);
  if (workspaces !== null && workspaces.length === 0) return { items: [], nextCursor: null };
  const field = query.orderBy === "createdAt" ? "created_at" : "updated_at";
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (workspaces !== null) where.push(`s.workspace IN (${workspaces.join(",")})`);
  if (query.status !== null) {
    where.push("s.status = ?");
    params.push(query.status);
  }
  if (query.sinceMs !== null) {
    where.push("s.updated_at >= ?");
    params.push(new Date(query.sinceMs).toISOString());
  }
  if (query.untilMs !== null) {
    where.push("s.updated_at < ?");
    params.push(new Date(query.untilMs).toISOString());
  }
  if (query.words !== null) {
    const match = ftsMatch(query.words);
    if (match === null) return { items: [], nextCursor: null };
    where.push("s.id IN (SELECT rowid FROM session_fts WHERE session_fts MATCH ?)");
    params.push(match);
  }
  if (after !== null) {
    where.push(`(s.${field} < ? OR (s.${field} = ? AND s.session_id < ?))`);
    params.push(after[0], after[0], after[1]);
  }
  const rows = prepared<SummaryRow>(
    `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s
     ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY s.${field} DESC, s.session_id DESC LIMIT ${query.limit + 1}`,
  ).all(...params);
  return sessionPage(query, rows, summaryOf);
}

/** Where the index stands in a session's log (see `SqliteQueryEngine.indexedLog`). */
function indexedLogOf(reads: IndexReads, sessionId: string): IndexedLog | null {
  const { sessionById, typeRow, lastEventOfType } = reads;
  const row = sessionById.get(sessionId);
  if (row === undefined) return null;
  const goalType = typeRow.get("goal/set");
  const lastGoal = goalType === undefined ? undefined : lastEventOfType.get(row.id, goalType.id);
  return {
    headerText: row.header,
    aggregate: parseStored<SessionAggregate>(row.aggregate),
    damage:
      row.damage_code === null
        ? null
        : { code: row.damage_code, message: row.damage_message ?? "" },
    offset: row.file_offset,
    line: row.file_line,
    inode: row.file_ino,
    size: row.file_size,
    lastGoal: lastGoal ?? null,
  };
}
