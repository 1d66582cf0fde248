/**
 * The writer's open transaction: taken with the write lock up front, counted in the index's
 * `generation` only when it changed rows, and holding back its full-text rows until it ends (see
 * `pending-fts.ts`). A sync spans several of them (`eventsPerTransaction` events each, in
 * `indexer.ts`).
 */
import type Database from "better-sqlite3";
import { PendingFtsRows } from "./pending-fts";
import type { WriterStatements } from "./writer-statements";

/** One write transaction at a time on the writer's connection. */
export class WriteTransaction {
  /** This transaction's full-text rows, written sorted at its end (see pending-fts.ts). */
  readonly pendingFts: PendingFtsRows;
  /** Events indexed in this transaction. */
  pendingEvents = 0;
  private inTransaction = false;
  /** This connection's `total_changes()` when the open transaction began. */
  private changesAtBegin = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: WriterStatements,
  ) {
    this.pendingFts = new PendingFtsRows(db);
  }

  /** Opens a transaction. */
  begin(): void {
    // IMMEDIATE: take the write lock now (waiting up to busy_timeout for another process's sync)
    // rather than fail on upgrading a read transaction later.
    this.db.exec("BEGIN IMMEDIATE");
    this.inTransaction = true;
    this.pendingEvents = 0;
    this.changesAtBegin = this.statements.totalChanges.get() as number;
  }

  /** Writes the held full-text rows and commits (nothing when no transaction is open). */
  commit(): void {
    if (!this.inTransaction) return;
    this.pendingFts.write();
    // A transaction that wrote rows is counted: searches keep summaries and open logs until the
    // generation changes. One that wrote nothing (a `readSession`'s sync of an unchanged log) is
    // not, so it keeps them.
    if (this.statements.totalChanges.get() !== this.changesAtBegin) {
      this.statements.bumpGeneration.run();
    }
    this.db.exec("COMMIT");
    this.inTransaction = false;
  }

  /** Forgets the held full-text rows and rolls back (if a transaction is open). */
  rollback(): void {
    this.pendingFts.discard();
    if (!this.inTransaction) return;
    this.db.exec("ROLLBACK");
    this.inTransaction = false;
  }
}
