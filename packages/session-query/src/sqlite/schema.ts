/**
 * The SQLite index schema. The database is a disposable index over the logs: when the schema
 * version differs, every table is dropped and the index is rebuilt from the files.
 *
 * Event ids are time keys, `ms(ts) × 1024 + (seq mod 1024)` (probing upward on a collision), so
 * `ORDER BY id` is oldest/newest first. In the full-text index an event's rowid is its id negated
 * ({@link ftsRowId}): newest first, what a search asks by default, is FTS5's forward order, and
 * `since`/`until` are rowid ranges that FTS5 applies inside the index. The index stores
 * positions, not content: an event is read back from its log by byte offset, which keeps the
 * index well under the size of the logs.
 *
 * `generation` counts the index's write transactions (see {@link BUMP_GENERATION}): reading its
 * one row in a search's statement is cheaper than SQLite's `data_version` pragma.
 */
import type Database from "better-sqlite3";

/**
 * Bump when the layout changes; an index with another version is rebuilt. Version 4 negated the
 * full-text rowids (versions 2 and 3 are rebuilt: their full-text index is in the other order);
 * version 5 keeps each session's invariant state (`session_invariants`), so appended bytes are
 * checked against every invariant (older indexes are rebuilt: they have no state to go on from);
 * version 6 tells an imported session's open turn from a running one (`imported`, the
 * aggregate's `turnImported`; older indexes are rebuilt so imported sessions stop listing as
 * `active`).
 */
export const SCHEMA_VERSION = 6;

/** Keys per millisecond in an event id. */
export const KEYS_PER_MS = 1024;

/**
 * An event's rowid in `event_fts`: its id negated, so that FTS5's ascending order (it reads a
 * doclist forward, without the doclist index it follows and the last leaf it parses whole to
 * iterate backward) is newest first. Negation rather than `C - id`: the join and the ranges stay
 * readable, and the cost is one byte per `event_fts_docsize` key (a negative varint is 9 bytes,
 * an id 8). Its own inverse: the event id of a rowid is `ftsRowId(rowid)`; in SQL,
 * {@link ftsRowIdSql}.
 */
export function ftsRowId(eventId: number): number {
  return -eventId;
}

/** {@link ftsRowId} in SQL, of `expression` (an event id, or an `event_fts` rowid: its own inverse). */
export function ftsRowIdSql(expression: string): string {
  return `-${expression}`;
}

const ddl = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE workspaces (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE tools (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE event_types (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE,
  workspace INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  parent_id TEXT,
  status TEXT NOT NULL,
  header TEXT NOT NULL,
  aggregate TEXT NOT NULL,
  damage_code TEXT,
  damage_message TEXT,
  file_offset INTEGER NOT NULL,
  file_line INTEGER NOT NULL,
  file_size INTEGER NOT NULL,
  file_ino INTEGER NOT NULL,
  file_mtime REAL NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions (updated_at, session_id);
CREATE INDEX sessions_by_created ON sessions (created_at, session_id);
CREATE INDEX sessions_by_parent ON sessions (parent_id) WHERE parent_id IS NOT NULL;
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  length INTEGER NOT NULL,
  type INTEGER NOT NULL,
  role TEXT,
  tool INTEGER,
  call_id TEXT,
  replaced INTEGER
);
CREATE INDEX events_by_session ON events (session);
CREATE INDEX events_by_call ON events (session, call_id) WHERE call_id IS NOT NULL;
CREATE VIRTUAL TABLE event_fts USING fts5 (
  body, tags, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO event_fts (event_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
CREATE VIRTUAL TABLE session_fts USING fts5 (
  prompt, cwd, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE session_invariants (session INTEGER PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE generation (value INTEGER NOT NULL);
INSERT INTO generation (value) VALUES (0);
`;

/**
 * Counts a write transaction of the index (the writer runs it in each one that changes rows:
 * `indexer.ts`). What a search keeps between searches (summaries, open logs: `hit-cache.ts`) is
 * valid while the generation is where it was. Not a trigger on `sessions`: a statement that
 * fires a trigger opens a statement savepoint, and FTS5 writes its pending rows out as a new
 * segment at every savepoint (a segment per session instead of one per transaction).
 */
export const BUMP_GENERATION = "UPDATE generation SET value = value + 1";

const tables = [
  "meta",
  "workspaces",
  "tools",
  "event_types",
  "sessions",
  "events",
  "generation",
  "session_invariants",
  "event_fts",
  "session_fts",
];

/** Opens (and if needed creates or resets) the schema. WAL, normal sync: it is only an index. */
export function prepareSchema(db: Database.Database): void {
  // On a new file only (the mode is fixed once its first page is written): a sync that fills the
  // empty index gives back the pages its merges freed (`incremental_vacuum`, see indexer.ts).
  if (db.pragma("page_count", { simple: true }) === 0) db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  // Another process (the CLI next to the web server) may be syncing the same index.
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  db.pragma("temp_store = MEMORY");
  db.pragma("cache_size = -65536");
  // Reads through a memory map (up to 1 GiB of the file): a search's first look at a word's
  // postings costs page faults on what the OS has cached, not a read() per page into SQLite's
  // cache; measured, a first-time word's FTS query went from 3–5 ms to 0.2–0.3 ms.
  db.pragma("mmap_size = 1073741824");
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    .get();
  const version = hasMeta
    ? (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
        | { value: string }
        | undefined)
    : undefined;
  if (version?.value === String(SCHEMA_VERSION)) return;
  db.transaction(() => {
    for (const table of tables) db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.exec(ddl);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
  })();
}

/** The FTS tag of an event type (`function_call` → `tfunctioncall`). */
export function typeTag(type: string): string {
  return `t${type.replace(/[^a-z0-9]/gi, "").toLowerCase()}`;
}

/** The FTS tag of a message role. */
export function roleTag(role: string): string {
  return `r${role}`;
}
