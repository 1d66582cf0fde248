/**
 * What a long-running SQLite engine (the viewer, the MCP server) keeps between searches while the
 * index does not change: the open log files it read hits from, and the summaries of the sessions
 * those hits belong to. A page of 20 hits from a few sessions then costs a few positioned reads,
 * without opening a file or reading a session row.
 *
 * The index is unchanged while its `generation` (a count of the writer's transactions, in any
 * connection: this one's syncs and damage records, a `tapedeck index` in another process;
 * `schema.ts`) is where it was; any change empties the cache and closes its files.
 * The logs are append-only: an open file still holds every line the index points into, and a log
 * replaced or removed since is noticed by the sync that records it (which changes the index).
 */
import type { LogReader } from "@tapedeck/session-store";
import type { SessionSummary } from "../query-engine";
import { copySummary } from "../summary";
import type { IndexedStore } from "./sync-types";

/** Most log files kept open at once (least recently used closed first). */
export const MAX_OPEN_LOGS = 64;

/** Most session summaries kept per scope; past it the scope's are forgotten at once. */
export const MAX_CACHED_SESSIONS = 4096;

/** A session of a page: its id (the log's name) and its summary. */
export interface PageSession {
  sessionId: string;
  summary: SessionSummary;
}

/** How often the cache had to go to the files and the database (for tests and benches). */
export interface HitCacheStats {
  /** Log files opened. */
  logOpens: number;
  /** Session rows read from the database (one per session not cached). */
  sessionRows: number;
  /** Times the cache was emptied because the index changed. */
  resets: number;
}

/**
 * Result column `g` giving the index's generation, for {@link HitCache.refresh}. A search selects
 * it with its hits: one statement per search, not a second one to check the cache (each
 * statement costs ≈ 0.05–0.08 ms on a search's first touch of SQLite's code after other work,
 * issue #12), and the generation is the one of the snapshot the hits come from. One row of a
 * one-page table: SQLite's `data_version` pragma (with `total_changes()` for the connection's own
 * writes), used before, ran the pragma's virtual table code in every search (≈ 0.03 ms cold).
 */
export const INDEX_VERSION_COLUMNS = "(SELECT value FROM generation) AS g";

/** Log readers and session summaries valid while the index is unchanged. */
export class HitCache {
  readonly stats: HitCacheStats = { logOpens: 0, sessionRows: 0, resets: 0 };
  private generation = -1;
  private readonly readers = new Map<string, LogReader>();
  /** Per scope (its workspaces: fork counts depend on them), session row id → session. */
  private readonly sessions = new Map<string, Map<number, PageSession>>();

  constructor(private readonly store: Pick<IndexedStore, "openLogReader">) {}

  /**
   * Empties the cache when the index changed since the last call. Call once per search, with the
   * generation its hits were read at (`INDEX_VERSION_COLUMNS`).
   */
  refresh(generation: number): void {
    if (generation === this.generation) return;
    if (this.generation !== -1) this.stats.resets += 1;
    this.generation = generation;
    this.clear();
  }

  /**
   * The sessions of `ids` for the scope keyed `scopeKey`: cached ones as they are, the rest from
   * `load` (one call for all of them). A session `load` does not return is absent from the map.
   */
  pageSessions(
    scopeKey: string,
    ids: readonly number[],
    load: (missing: number[]) => Iterable<[number, PageSession]>,
  ): Map<number, PageSession> {
    let known = this.sessions.get(scopeKey);
    if (known === undefined || known.size + ids.length > MAX_CACHED_SESSIONS) {
      // A few scopes at most live at once (a viewer's, an MCP client's): a new one past that
      // starts the cache over rather than keeping every scope ever seen.
      if (known === undefined && this.sessions.size >= 16) this.sessions.clear();
      known = new Map();
      this.sessions.set(scopeKey, known);
    }
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      for (const [id, session] of load(missing)) {
        known.set(id, session);
        this.stats.sessionRows += 1;
      }
    }
    return known;
  }

  /** A copy of a cached summary (callers own what they are given). */
  summaryOf(session: PageSession): SessionSummary {
    return copySummary(session.summary);
  }

  /** An open reader of the session's log, or `null` when it is gone. Do not close it. */
  reader(sessionId: string): LogReader | null {
    const cached = this.readers.get(sessionId);
    if (cached !== undefined) {
      // Most recently used last: a Map iterates in insertion order.
      this.readers.delete(sessionId);
      this.readers.set(sessionId, cached);
      return cached;
    }
    const reader = this.store.openLogReader(sessionId);
    if (reader === null) return null;
    this.stats.logOpens += 1;
    this.readers.set(sessionId, reader);
    if (this.readers.size > MAX_OPEN_LOGS) {
      const [oldest, evicted] = this.readers.entries().next().value!;
      this.readers.delete(oldest);
      evicted.close();
    }
    return reader;
  }

  /** Closes every log and forgets every summary. */
  clear(): void {
    for (const reader of this.readers.values()) reader.close();
    this.readers.clear();
    this.sessions.clear();
  }
}
