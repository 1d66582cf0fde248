/**
 * The full-text rows of the open write transaction, held back and written in ascending rowid
 * order. FTS5 writes its pending rows out as a new segment whenever a rowid is not above the last
 * one written: event rowids are negated ids (`ftsRowId`), so a sync that read events oldest first
 * and wrote each at once would leave a segment per event, and sessions that overlap in time would
 * leave one per session even in the old order. Written sorted, a transaction's rows make one
 * segment (more only where FTS5's own pending-data limit, about 1 MB of terms, is reached), and
 * `event_fts_docsize` gets its keys in ascending runs, which keeps its b-tree pages full.
 */
import type Database from "better-sqlite3";

/** A row of `event_fts`. */
interface FtsRow {
  rowid: number;
  body: string;
  tags: string;
}

/**
 * Characters of text held before the rows are written anyway: a bound on memory for a session
 * with large tool outputs (a transaction is otherwise 50,000 events, ≈ 13 MB on the bench home).
 */
const maxPendingChars = 32 * 1024 * 1024;

/** `event_fts` inserts of one transaction, written by {@link PendingFtsRows.write}. */
export class PendingFtsRows {
  private rows: FtsRow[] = [];
  private chars = 0;
  private readonly insert: Database.Statement<[number, string, string]>;

  constructor(db: Database.Database) {
    this.insert = db.prepare("INSERT INTO event_fts (rowid, body, tags) VALUES (?, ?, ?)");
  }

  /** Holds a row back (writes the held rows first when they reached the memory bound). */
  add(rowid: number, body: string, tags: string): void {
    this.rows.push({ rowid, body, tags });
    this.chars += body.length + tags.length;
    if (this.chars >= maxPendingChars) this.write();
  }

  /**
   * Writes the held rows, ascending by rowid. Call before the transaction commits and before any
   * statement that deletes from `event_fts` (it must see the rows this transaction added).
   */
  write(): void {
    if (this.rows.length === 0) return;
    const rows = this.rows.sort((a, b) => a.rowid - b.rowid);
    this.rows = [];
    this.chars = 0;
    for (const row of rows) this.insert.run(row.rowid, row.body, row.tags);
  }

  /** Forgets the held rows (the transaction rolled back). */
  discard(): void {
    this.rows = [];
    this.chars = 0;
  }
}
