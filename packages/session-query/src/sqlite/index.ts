/**
 * `@tapedeck/session-query/sqlite`: the SQLite FTS5 backend (better-sqlite3, Node only).
 */

export { SCHEMA_VERSION } from "./schema";
export {
  createSqliteQueryEngine,
  type IndexedLog,
  type SqliteQueryEngine,
  type SqliteQueryEngineOptions,
  type SyncOptions,
} from "./sqlite-engine";
export type { IndexedStore, SyncProgress, SyncReport } from "./sync-types";
