import * as fs from "node:fs";
/**
 * The SQLite FTS5 backend: an index over the store's logs, rebuildable at any time. Searches read
 * the index and then the matching lines from the logs by byte offset; `readSession` syncs the one
 * session and replays it through the store, so it always reflects the file as of the call.
 */
import type { Session, SessionHeader } from "@tapedeck/session";
import { EventLogCorruptError, SessionNotFoundError } from "@tapedeck/session/core";
import Database from "better-sqlite3";
import { InvalidQueryError } from "../errors";
import { ftsMatch } from "../fts-query";
import {
  type EventPosition,
  eventCursor,
  eventPosition,
  type NormalizedEventQuery,
  type NormalizedSessionQuery,
  sessionCursor,
  sessionPosition,
} from "../normalize-query";
import { queryEngine } from "../query-backend";
import type { EventHit, Page, SessionQueryEngine, SessionSummary } from "../query-engine";
import type { ParsedScope } from "../query-schema";
import { type SessionAggregate, toSummary } from "../summary";
import { type EventRow, ROW_ID } from "./event-lines";
import { HitCache } from "./hit-cache";
import type { IndexedStore, Indexer, SessionRow, SyncProgress, SyncReport } from "./indexer";
import { KEYS_PER_MS, prepareSchema, roleTag, typeTag } from "./schema";
import { EVENT_ROW_COLUMNS, type PageSessionSource, pageHits } from "./search-hits";
import { emptySyncReport, nothingChanged, parseStored, savedChangeCursor } from "./stored";

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

const surfaceTypes = ["message", "function_call", "function_call_output", "compaction"];

type SummaryRow = SessionRow & { fork_count: number };

/** Opens (creating if needed) an index at `path` over `store`'s logs. */
export function createSqliteQueryEngine(options: SqliteQueryEngineOptions): SqliteQueryEngine {
  const db = new Database(options.path);
  prepareSchema(db);
  const { store } = options;
  // The writer (and, through its replay, the log's zod schemas) is loaded by the first sync that
  // has work: a search on a fresh index never loads it (see `stored.ts`).
  let indexer: Promise<Indexer> | undefined;
  const writer = (): Promise<Indexer> =>
    (indexer ??= import("./indexer").then(
      ({ Indexer }) => new Indexer(db, store, options.optimizeAfterEvents),
    ));
  const hitCache = new HitCache(store);
  const workspaceRow = db.prepare<[string], { id: number }>(
    "SELECT id FROM workspaces WHERE name = ?",
  );
  const toolRow = db.prepare<[string], { id: number }>("SELECT id FROM tools WHERE name = ?");
  const maxEvent = db.prepare<[], { id: number | null }>("SELECT max(id) AS id FROM events");
  const typeRow = db.prepare<[string], { id: number }>("SELECT id FROM event_types WHERE name = ?");
  const sessionById = db.prepare<[string], SessionRow>(
    "SELECT * FROM sessions WHERE session_id = ?",
  );
  const lastEventOfType = db.prepare<[number, number], { offset: number; length: number }>(
    "SELECT offset, length FROM events WHERE session = ? AND type = ? ORDER BY seq DESC LIMIT 1",
  );
  const statements = new Map<string, Database.Statement>();
  /**
   * A prepared statement for SQL built at run time (cached: preparing costs more than running);
   * with `raw`, its rows are arrays. A SQL text is only ever used in one of the two modes.
   */
  const prepared = <Row>(
    sql: string,
    raw = false,
  ): Database.Statement<(string | number)[], Row> => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      if (statements.size > 500) statements.clear();
      statement = db.prepare(sql);
      if (raw) statement.raw(true);
      statements.set(sql, statement);
    }
    return statement as Database.Statement<(string | number)[], Row>;
  };
  /** Row ids of the known event types among `names`. */
  const typeIds = (names: readonly string[]): number[] =>
    names.flatMap((name) => {
      const row = typeRow.get(name);
      return row === undefined ? [] : [row.id];
    });

  /** Workspace row ids the scope allows, or `null` for all. */
  const workspacesOf = (scope: ParsedScope): number[] | null => {
    if ("all" in scope) return null;
    const ids: number[] = [];
    for (const name of scope.workspaceIds) {
      const row = workspaceRow.get(name);
      if (row !== undefined) ids.push(row.id);
    }
    return ids;
  };

  const forkCountSql = (workspaces: number[] | null) =>
    `(SELECT count(*) FROM sessions c WHERE c.parent_id = s.session_id${
      workspaces === null ? "" : ` AND c.workspace IN (${workspaces.join(",")})`
    }) AS fork_count`;

  const summaryOf = (row: SummaryRow): SessionSummary => {
    const header = parseStored<SessionHeader>(row.header);
    const aggregate = parseStored<SessionAggregate>(row.aggregate);
    const damage =
      row.damage_code === null
        ? null
        : { code: row.damage_code, message: row.damage_message ?? "" };
    return toSummary(header, aggregate, row.fork_count, damage);
  };

  /** The row of a session in scope, or null. */
  const sessionInScope = (scope: ParsedScope, sessionId: string): SummaryRow | null => {
    const workspaces = workspacesOf(scope);
    if (workspaces !== null && workspaces.length === 0) return null;
    const row = prepared<SummaryRow>(
      `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s WHERE s.session_id = ?${
        workspaces === null ? "" : ` AND s.workspace IN (${workspaces.join(",")})`
      }`,
    ).get(sessionId);
    return row ?? null;
  };

  const listSessions = (
    scope: ParsedScope,
    query: NormalizedSessionQuery,
  ): Page<SessionSummary> => {
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
    const items = rows.slice(0, query.limit).map(summaryOf);
    const last = items[items.length - 1];
    const time = query.orderBy === "createdAt" ? last?.createdAt : last?.updatedAt;
    return {
      items,
      nextCursor:
        rows.length > query.limit && last !== undefined && time !== undefined
          ? sessionCursor(query, time, last.id)
          : null,
    };
  };

  /** Where a page's sessions come from when the hit cache does not hold them. */
  const pageSessionSource = (workspaces: number[] | null): PageSessionSource => ({
    scopeKey: workspaces === null ? "*" : workspaces.join(","),
    // The sessions missing from the cache in one statement, not one query per session.
    load: (missing) =>
      prepared<SummaryRow>(
        `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s
         WHERE s.id IN (SELECT value FROM json_each(?))`,
      )
        .all(JSON.stringify(missing))
        .map((row) => [row.id, { sessionId: row.session_id, summary: summaryOf(row) }]),
  });

  const searchEvents = (scope: ParsedScope, query: NormalizedEventQuery): Page<EventHit> => {
    const empty = { items: [], nextCursor: null };
    const position = eventPosition(query);
    const relevance = query.order === "relevance";
    if (position !== null && "key" in position === relevance) {
      throw new InvalidQueryError("cursor", "this cursor belongs to a different ordering");
    }
    const workspaces = workspacesOf(scope);
    if (workspaces !== null && workspaces.length === 0) return empty;
    let sessionRowId: number | null = null;
    if (query.sessionId !== null) {
      const row = sessionInScope(scope, query.sessionId);
      if (row === null) return empty;
      sessionRowId = row.id;
    }
    let toolId: number | null = null;
    if (query.toolName !== null) {
      const row = toolRow.get(query.toolName);
      if (row === undefined) return empty;
      toolId = row.id;
    }
    // Time bounds and the cursor are ranges over the time-keyed event ids.
    let low = query.sinceMs === null ? null : query.sinceMs * KEYS_PER_MS;
    let high = query.untilMs === null ? null : query.untilMs * KEYS_PER_MS;
    let offset = 0;
    let snapshotMs: number | null = null;
    if (position !== null) {
      if ("key" in position) {
        const last = Number(position.key[0]);
        if (query.order === "oldest") low = Math.max(low ?? last + 1, last + 1);
        else high = Math.min(high ?? last, last);
      } else {
        offset = position.offset;
        snapshotMs = position.snapshotMs;
      }
    }
    if (relevance) {
      // The newest event in scope only: a cursor must not carry another workspace's activity.
      snapshotMs ??= Math.floor(
        ((workspaces === null
          ? maxEvent.get()?.id
          : prepared<{ id: number | null }>(
              `SELECT max(e.id) AS id FROM events e JOIN sessions s ON s.id = e.session WHERE s.workspace IN (${workspaces.join(",")})`,
            ).get()?.id) ?? 0) / KEYS_PER_MS,
      );
      const bound = (snapshotMs + 1) * KEYS_PER_MS;
      high = high === null ? bound : Math.min(high, bound);
    }
    const where: string[] = [];
    const params: (string | number)[] = [];
    const idColumn = query.text === null ? "e.id" : "f.rowid";
    if (low !== null) {
      where.push(`${idColumn} >= ?`);
      params.push(low);
    }
    if (high !== null) {
      where.push(`${idColumn} < ?`);
      params.push(high);
    }
    if (query.currentOnly) {
      where.push(`e.replaced IS NULL AND e.type IN (${typeIds(surfaceTypes).join(",")})`);
    }
    if (query.callId !== null) {
      where.push("e.call_id = ?");
      params.push(query.callId);
    }
    const limit = query.limit + 1;
    let rows: EventRow[];
    if (query.words !== null) {
      const body = ftsMatch(query.words);
      if (body === null) return empty;
      const match = [`body : (${body})`];
      if (workspaces !== null)
        match.push(`tags : (${workspaces.map((id) => `w${id}`).join(" OR ")})`);
      if (sessionRowId !== null) match.push(`tags : s${sessionRowId}`);
      if (query.types !== null) match.push(`tags : (${query.types.map(typeTag).join(" OR ")})`);
      if (query.roles !== null) match.push(`tags : (${query.roles.map(roleTag).join(" OR ")})`);
      if (toolId !== null) match.push(`tags : n${toolId}`);
      const order =
        query.order === "relevance"
          ? "f.rank, f.rowid DESC"
          : query.order === "oldest"
            ? "f.rowid"
            : "f.rowid DESC";
      rows = prepared<EventRow>(
        `SELECT ${EVENT_ROW_COLUMNS}${relevance ? ", f.rank" : ""}
         FROM event_fts f JOIN events e ON e.id = f.rowid
         WHERE event_fts MATCH ?${where.map((clause) => ` AND ${clause}`).join("")}
         ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
        true,
      ).all(match.join(" AND "), ...params);
    } else {
      const join = workspaces === null ? "" : "JOIN sessions s ON s.id = e.session";
      if (workspaces !== null) where.push(`s.workspace IN (${workspaces.join(",")})`);
      if (sessionRowId !== null) {
        where.push("e.session = ?");
        params.push(sessionRowId);
      }
      if (query.types !== null) {
        const ids = typeIds(query.types);
        if (ids.length === 0) return empty;
        where.push(`e.type IN (${ids.join(",")})`);
      }
      if (query.roles !== null) {
        where.push(`e.role IN (${query.roles.map(() => "?").join(",")})`);
        params.push(...query.roles);
      }
      if (toolId !== null) {
        where.push("e.tool = ?");
        params.push(toolId);
      }
      rows = prepared<EventRow>(
        `SELECT ${EVENT_ROW_COLUMNS} FROM events e ${join}
         ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY e.id ${query.order === "oldest" ? "" : "DESC"} LIMIT ${limit}`,
        true,
      ).all(...params);
    }
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    let next: EventPosition | null = null;
    if (more && last !== undefined) {
      next = relevance
        ? { offset: offset + query.limit, snapshotMs: snapshotMs ?? 0 }
        : { key: [last[ROW_ID]] };
    }
    return {
      items: pageHits(hitCache, page, pageSessionSource(workspaces), query, relevance),
      nextCursor: next === null ? null : eventCursor(query, next),
    };
  };

  const engine: SqliteQueryEngine = {
    ...queryEngine({
      listSessions,
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
    }),

    async sync(syncOptions = {}) {
      // Until the writer is loaded nothing in this process writes: a fresh index is answered here.
      if (indexer === undefined) {
        const saved = savedChangeCursor(db);
        if (nothingChanged(await store.changesSince(saved), saved)) return emptySyncReport();
      }
      const writing = await writer();
      return writing.exclusive(() => writing.syncAll(syncOptions.onProgress));
    },

    async rebuild(syncOptions = {}) {
      const indexer = await writer();
      return indexer.exclusive(async () => {
        const optimizedBefore = indexer.optimizeRuns;
        indexer.clear();
        const report = await indexer.syncAll(syncOptions.onProgress, { full: true });
        // syncAll merged already when it indexed enough; a small rebuild is merged here.
        if (indexer.optimizeRuns === optimizedBefore) indexer.optimize();
        // Leave no write-ahead log behind: the index should be one file of its final size.
        db.pragma("wal_checkpoint(TRUNCATE)");
        return report;
      });
    },

    indexedLog(sessionId) {
      const row = sessionById.get(sessionId);
      if (row === undefined) return null;
      const goalType = typeRow.get("goal/set");
      const lastGoal =
        goalType === undefined ? undefined : lastEventOfType.get(row.id, goalType.id);
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
    },

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
