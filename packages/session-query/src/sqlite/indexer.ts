/**
 * Keeps the SQLite index in step with the logs. `syncAll` asks the store what changed since the
 * cursor it saved last time (`changesSince`: the change journal, or a full scan when the journal
 * cannot answer) and ingests only that: bytes appended since the last sync are read from the
 * stored byte offset; a file that shrank, changed inode or header is re-ingested from scratch; a
 * file that is gone (moved to the trash) leaves the index. Writes happen in large transactions,
 * and FTS rows are written explicitly (no triggers).
 */
import { SessionNotFoundError } from "@tapedeck/session";
import { type ChangeSet, InvalidOffsetError, type LogEntry } from "@tapedeck/session-store";
import type Database from "better-sqlite3";
import type { Damage } from "../summary";
import { FtsMerges, setMergeMode } from "./fts-merge";
import { LogIngest } from "./log-ingest";
import { emptySyncReport, nothingChanged, savedChangeCursor } from "./stored";
import type { FileState, IndexedStore, SyncProgress, SyncReport } from "./sync-types";
import { WriteTransaction } from "./write-transaction";
import { prepareWriterStatements, type WriterStatements } from "./writer-statements";

/** Events per transaction during a sync: large enough to amortize commits. */
const eventsPerTransaction = 50_000;

/** The SQLite index writer. All methods run one at a time (see `exclusive`). */
export class Indexer {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements: WriterStatements;
  private readonly transaction: WriteTransaction;
  /** One log's events into rows (see log-ingest.ts). */
  private readonly rows: LogIngest;
  /** Merge work after syncs (see fts-merge.ts); its counters are read by tests and `rebuild`. */
  readonly merges: FtsMerges;

  /** `optimizeAfterEvents`: see `SqliteQueryEngineOptions` (default 50,000). */
  constructor(
    private readonly db: Database.Database,
    private readonly store: IndexedStore,
    optimizeAfterEvents?: number,
  ) {
    this.statements = prepareWriterStatements(db);
    this.transaction = new WriteTransaction(db, this.statements);
    this.rows = new LogIngest(this.statements, store, this.transaction);
    this.merges = new FtsMerges(db, this.statements, optimizeAfterEvents);
  }

  /** Runs `task` after every earlier one: syncs never interleave. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Brings every session up to date with its file, looking only at the sessions the store names
   * as changed since the last sync (all of them when `full`, or when the journal cannot answer).
   */
  async syncAll(
    onProgress?: (progress: SyncProgress) => void,
    options: { full?: boolean } = {},
  ): Promise<SyncReport> {
    const report = emptySyncReport();
    const saved = options.full ? null : savedChangeCursor(this.db);
    const changes = await this.store.changesSince(saved);
    // The journal says nothing changed since the last sync: no transaction at all, so a query on
    // a fresh index writes nothing (no WAL frames, no fsync, no checkpoint when it closes).
    if (nothingChanged(changes, saved)) return report;
    const work = this.plan(changes, report);
    // Filling an empty index: merge once at the end, not along the way (see fts-merge.ts).
    const bulk = work.length > 0 && this.statements.anyEvent.get() === undefined;
    try {
      setMergeMode(this.db, bulk ? "bulk" : "normal");
      let done = 0;
      for (const { sessionId, known, entry } of work) {
        const before = report.eventsIndexed;
        await this.syncFile(sessionId, report, entry, known);
        done += 1;
        if (report.eventsIndexed !== before || done === work.length) {
          onProgress?.({
            sessionsDone: done,
            sessionsTotal: work.length,
            eventsIndexed: report.eventsIndexed,
          });
        }
        if (this.transaction.pendingEvents >= eventsPerTransaction) {
          this.transaction.commit();
          this.begin();
        }
      }
      this.saveCursor(changes.cursor);
      this.transaction.commit();
    } catch (error) {
      this.transaction.rollback();
      throw error;
    }
    this.merges.afterSync(report.eventsIndexed);
    if (bulk) {
      this.merges.endBulk();
      // The segments merged away leave free pages; an index created by this version returns them
      // (the index's size is a goal: ≤ 0.5× the logs), others keep them for later inserts.
      this.db.pragma("incremental_vacuum");
      // An index filled from nothing is a rebuild in all but name: leave it one file of its
      // final size, as a rebuild does (issue #12: the footprint is the database and its WAL).
      this.db.pragma("wal_checkpoint(TRUNCATE)");
    }
    return report;
  }

  /**
   * Opens the first transaction and lists the sessions to look at: after a scan every log (and
   * rows whose log is gone are removed), after a journal read only the named ones.
   */
  private plan(
    changes: ChangeSet,
    report: SyncReport,
  ): { sessionId: string; entry: LogEntry | null; known?: FileState }[] {
    this.begin();
    try {
      if (changes.kind === "journal") {
        const named = new Set(changes.sessionIds);
        if (changes.present !== undefined) {
          // The folder changed outside the journal's knowledge: new names are looked at, rows
          // whose log is gone are removed.
          const present = new Set(changes.present);
          const indexed = new Set<string>();
          for (const row of this.statements.allSessions.all()) {
            indexed.add(row.session_id);
            if (!present.has(row.session_id)) named.add(row.session_id);
          }
          for (const id of present) if (!indexed.has(id)) named.add(id);
        }
        return [...named].sort().map((sessionId) => ({
          sessionId,
          entry: this.store.entry(sessionId),
        }));
      }
      const present = new Map(changes.logs.map((log) => [log.sessionId, log]));
      const known = new Map<string, FileState>();
      for (const row of this.statements.allSessions.all()) {
        if (!present.has(row.session_id)) {
          this.removeSession(row.id);
          report.sessionsRemoved += 1;
        } else {
          known.set(row.session_id, {
            size: row.file_size,
            ino: row.file_ino,
            mtime: row.file_mtime,
          });
        }
      }
      return changes.logs.map((entry) => {
        const state = known.get(entry.sessionId);
        return state === undefined
          ? { sessionId: entry.sessionId, entry }
          : { sessionId: entry.sessionId, entry, known: state };
      });
    } catch (error) {
      this.transaction.rollback();
      throw error;
    }
  }

  private saveCursor(cursor: string | null): void {
    if (cursor === null) this.statements.deleteMeta.run("changes");
    else this.statements.setMeta.run("changes", cursor);
  }

  /** Brings one session up to date. Returns false when its log does not exist. */
  async syncOne(sessionId: string): Promise<boolean> {
    const report: SyncReport = {
      sessionsAdded: 0,
      sessionsUpdated: 0,
      sessionsRemoved: 0,
      eventsIndexed: 0,
      damaged: [],
    };
    const entry = this.store.entry(sessionId);
    this.begin();
    try {
      const exists = await this.syncFile(sessionId, report, entry);
      this.transaction.commit();
      return exists;
    } catch (error) {
      this.transaction.rollback();
      throw error;
    }
  }

  /** Removes every row (the start of a rebuild). */
  clear(): void {
    this.db.transaction(() => {
      this.db.exec(`INSERT INTO event_fts (event_fts) VALUES ('delete-all');
        INSERT INTO session_fts (session_fts) VALUES ('delete-all');
        DELETE FROM events; DELETE FROM sessions; DELETE FROM tools; DELETE FROM workspaces;
        DELETE FROM event_types; DELETE FROM session_invariants;
        DELETE FROM meta WHERE key = 'changes';`);
      this.statements.bumpGeneration.run();
    })();
    this.rows.forgetIds();
  }

  /** Records damage found by a read (e.g. a broken invariant) against a session. */
  recordDamage(sessionId: string, damage: Damage, seq?: number): void {
    const row = this.statements.sessionRowId.get(sessionId);
    if (row === undefined) return;
    this.db.transaction(() => {
      this.statements.setDamage.run(damage.code, damage.message, row.id);
      this.statements.deleteInvariants.run(row.id);
      // A fork whose parent could not be read is only seq-checked while indexing (and a log may
      // change under the index between two syncs): what replay refuses leaves the index.
      if (seq !== undefined) {
        this.transaction.pendingFts.write();
        this.statements.deleteEventFtsFrom.run(row.id, seq);
        this.statements.deleteEventsFrom.run(row.id, seq);
      }
      this.statements.bumpGeneration.run();
    })();
  }

  private begin(): void {
    // Ids cached from an earlier sync may be stale if another process rebuilt the index.
    this.rows.forgetIds();
    this.transaction.begin();
  }

  private removeSession(rowId: number): void {
    // The delete must see the rows this transaction added for the session.
    this.transaction.pendingFts.write();
    this.statements.deleteEventFts.run(rowId);
    this.statements.deleteEvents.run(rowId);
    this.statements.deleteSessionFts.run(rowId);
    this.statements.deleteInvariants.run(rowId);
    this.statements.deleteSession.run(rowId);
  }

  /**
   * Syncs one file from its catalog entry (`null`: the log does not exist); false when it does not
   * exist. `known`: the file state the index holds, when the caller already loaded it (saves a
   * query per unchanged file).
   */
  private async syncFile(
    sessionId: string,
    report: SyncReport,
    entry: LogEntry | null,
    known?: FileState,
  ): Promise<boolean> {
    if (entry === null) {
      const gone = this.statements.sessionById.get(sessionId);
      if (gone !== undefined) {
        this.removeSession(gone.id);
        report.sessionsRemoved += 1;
      }
      return false;
    }
    const file: FileState = { size: entry.size, ino: entry.inode, mtime: entry.modifiedMs };
    if (
      known !== undefined &&
      known.ino === file.ino &&
      known.size === file.size &&
      known.mtime === file.mtime
    ) {
      return true;
    }
    let row = this.statements.sessionById.get(sessionId) ?? null;
    if (
      row !== null &&
      row.file_ino === file.ino &&
      row.file_size === file.size &&
      row.file_mtime === file.mtime
    ) {
      return true;
    }
    if (
      row !== null &&
      (row.file_ino !== file.ino ||
        file.size < row.file_offset ||
        // Same size, other time: changed in place (an append always grows the file).
        (file.size === row.file_size && file.mtime !== row.file_mtime) ||
        entry.header === undefined ||
        entry.headerText !== row.header)
    ) {
      this.removeSession(row.id);
      row = null;
    }
    if (row === null) {
      // A log without a readable header cannot be placed in a workspace: it is left out, as
      // `store.list()` leaves it out.
      if (entry.header === undefined) return true;
      row = this.rows.insertSession(
        entry.header,
        { text: entry.headerText, end: entry.headerEnd },
        file,
      );
      report.sessionsAdded += 1;
    } else {
      report.sessionsUpdated += 1;
    }
    try {
      const indexed = await this.rows.ingestEvents(row, file, report);
      if (indexed === null) {
        // No invariant state to check the new bytes from: index the whole log again.
        this.removeSession(row.id);
        return this.syncFile(sessionId, report, entry);
      }
      report.eventsIndexed += indexed;
    } catch (error) {
      if (InvalidOffsetError.isInstance(error)) {
        // The stored offset is no line start any more: the file was rewritten in place.
        this.removeSession(row.id);
        return this.syncFile(sessionId, report, this.store.entry(sessionId));
      }
      if (SessionNotFoundError.isInstance(error)) {
        this.removeSession(row.id);
        return false;
      }
      throw error;
    }
    return true;
  }
}
