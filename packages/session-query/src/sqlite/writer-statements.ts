/**
 * The prepared statements of the index's writer (`indexer.ts`, `event-rows.ts`,
 * `write-transaction.ts`, `fts-merge.ts`), prepared once per connection.
 */
import type Database from "better-sqlite3";
import { BUMP_GENERATION, ftsRowIdSql } from "./schema";
import type { SessionRow } from "./sync-types";

/** The writer's prepared statements, named by what they do (the SQL is in {@link prepareWriterStatements}). */
export interface WriterStatements {
  allSessions: Database.Statement<
    [],
    Pick<SessionRow, "id" | "session_id" | "file_size" | "file_ino" | "file_mtime">
  >;
  sessionById: Database.Statement<[string], SessionRow>;
  insertSession: Database.Statement;
  updateSession: Database.Statement;
  setDamage: Database.Statement;
  deleteEventFts: Database.Statement;
  deleteEvents: Database.Statement;
  deleteEventFtsFrom: Database.Statement;
  deleteEventsFrom: Database.Statement;
  deleteSessionFts: Database.Statement;
  deleteSession: Database.Statement;
  insertSessionFts: Database.Statement;
  insertEvent: Database.Statement;
  eventExists: Database.Statement<[number], { id: number }>;
  callTool: Database.Statement<[string, number, number], { tool: number | null }>;
  replace: Database.Statement;
  tool: Database.Statement<[string], { id: number }>;
  type: Database.Statement<[string], { id: number }>;
  insertType: Database.Statement;
  insertTool: Database.Statement;
  workspace: Database.Statement<[string], { id: number }>;
  insertWorkspace: Database.Statement;
  countEvents: Database.Statement<[], { count: number }>;
  anyEvent: Database.Statement<[], { id: number }>;
  setMeta: Database.Statement;
  deleteMeta: Database.Statement;
  sessionRowId: Database.Statement<[string], { id: number }>;
  bumpGeneration: Database.Statement;
  totalChanges: Database.Statement;
  invariants: Database.Statement<[number], { state: string }>;
  setInvariants: Database.Statement;
  deleteInvariants: Database.Statement;
}

/** Prepares the writer's statements on `db`. */
export function prepareWriterStatements(db: Database.Database): WriterStatements {
  return {
    allSessions: db.prepare<
      [],
      Pick<SessionRow, "id" | "session_id" | "file_size" | "file_ino" | "file_mtime">
    >("SELECT id, session_id, file_size, file_ino, file_mtime FROM sessions"),
    sessionById: db.prepare<[string], SessionRow>("SELECT * FROM sessions WHERE session_id = ?"),
    insertSession: db.prepare(
      `INSERT INTO sessions (session_id, workspace, created_at, updated_at, parent_id, status, header,
         aggregate, file_offset, file_line, file_size, file_ino, file_mtime)
       VALUES (@session_id, @workspace, @created_at, @updated_at, @parent_id, @status, @header,
         @aggregate, @file_offset, @file_line, @file_size, @file_ino, @file_mtime)`,
    ),
    updateSession: db.prepare(
      `UPDATE sessions SET updated_at = @updated_at, status = @status, aggregate = @aggregate,
         damage_code = @damage_code, damage_message = @damage_message, file_offset = @file_offset,
         file_line = @file_line, file_size = @file_size, file_ino = @file_ino,
         file_mtime = @file_mtime
       WHERE id = @id`,
    ),
    setDamage: db.prepare(
      "UPDATE sessions SET damage_code = ?, damage_message = ?, status = 'damaged' WHERE id = ?",
    ),
    deleteEventFts: db.prepare(
      `DELETE FROM event_fts WHERE rowid IN (SELECT ${ftsRowIdSql("id")} FROM events WHERE session = ?)`,
    ),
    deleteEvents: db.prepare("DELETE FROM events WHERE session = ?"),
    deleteEventFtsFrom: db.prepare(
      `DELETE FROM event_fts WHERE rowid IN (SELECT ${ftsRowIdSql("id")} FROM events WHERE session = ? AND seq >= ?)`,
    ),
    deleteEventsFrom: db.prepare("DELETE FROM events WHERE session = ? AND seq >= ?"),
    deleteSessionFts: db.prepare("DELETE FROM session_fts WHERE rowid = ?"),
    deleteSession: db.prepare("DELETE FROM sessions WHERE id = ?"),
    insertSessionFts: db.prepare("INSERT INTO session_fts (rowid, prompt, cwd) VALUES (?, ?, ?)"),
    insertEvent: db.prepare(
      `INSERT INTO events (id, session, seq, offset, length, type, role, tool, call_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    eventExists: db.prepare<[number], { id: number }>("SELECT id FROM events WHERE id = ?"),
    callTool: db.prepare<[string, number, number], { tool: number | null }>(
      "SELECT tool FROM events WHERE call_id = ? AND session IN (?, ?) AND tool IS NOT NULL LIMIT 1",
    ),
    replace: db.prepare(
      "UPDATE events SET replaced = ? WHERE session = ? AND seq = ? AND replaced IS NULL",
    ),
    tool: db.prepare<[string], { id: number }>("SELECT id FROM tools WHERE name = ?"),
    type: db.prepare<[string], { id: number }>("SELECT id FROM event_types WHERE name = ?"),
    insertType: db.prepare("INSERT INTO event_types (name) VALUES (?)"),
    insertTool: db.prepare("INSERT INTO tools (name) VALUES (?)"),
    workspace: db.prepare<[string], { id: number }>("SELECT id FROM workspaces WHERE name = ?"),
    insertWorkspace: db.prepare("INSERT INTO workspaces (name) VALUES (?)"),
    countEvents: db.prepare<[], { count: number }>("SELECT count(*) AS count FROM events"),
    anyEvent: db.prepare<[], { id: number }>("SELECT id FROM events LIMIT 1"),
    setMeta: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
    deleteMeta: db.prepare("DELETE FROM meta WHERE key = ?"),
    sessionRowId: db.prepare<[string], { id: number }>(
      "SELECT id FROM sessions WHERE session_id = ?",
    ),
    bumpGeneration: db.prepare(BUMP_GENERATION),
    totalChanges: db.prepare("SELECT total_changes()").pluck(),
    invariants: db.prepare<[number], { state: string }>(
      "SELECT state FROM session_invariants WHERE session = ?",
    ),
    setInvariants: db.prepare(
      "INSERT OR REPLACE INTO session_invariants (session, state) VALUES (?, ?)",
    ),
    deleteInvariants: db.prepare("DELETE FROM session_invariants WHERE session = ?"),
  };
}
