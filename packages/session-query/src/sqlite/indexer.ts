/**
 * Keeps the SQLite index in step with the logs. `syncAll` asks the store what changed since the
 * cursor it saved last time (`changesSince`: the change journal, or a full scan when the journal
 * cannot answer) and ingests only that: bytes appended since the last sync are read from the
 * stored byte offset; a file that shrank, changed inode or header is re-ingested from scratch; a
 * file that is gone (moved to the trash) leaves the index. Writes happen in large transactions,
 * and FTS rows are written explicitly (no triggers).
 */
import {
  EventLogCorruptError,
  type SessionEvent,
  type SessionHeader,
  SessionNotFoundError,
} from "@tapedeck/session";
import {
  type ChangeSet,
  InvalidOffsetError,
  type LogEntry,
  logOffsetSchema,
  type SessionStore,
} from "@tapedeck/session-store";
import type Database from "better-sqlite3";
import { IndexValidator } from "../index-validator";
import { addEvent, type Damage, emptyAggregate, type SessionAggregate, statusOf } from "../summary";
import { eventText, spaceCjk } from "../text";
import { setMergeMode } from "./fts-merge";
import { PendingFtsRows } from "./pending-fts";
import { BUMP_GENERATION, ftsRowId, ftsRowIdSql, KEYS_PER_MS, roleTag, typeTag } from "./schema";
import { emptySyncReport, nothingChanged, parseStored, savedChangeCursor } from "./stored";

/** The store methods the index needs. */
export type IndexedStore = Pick<
  SessionStore,
  "changesSince" | "entry" | "openLogReader" | "read" | "readSession" | "announceChange"
>;

/** Progress of a sync or rebuild, reported after each session with new data. */
export interface SyncProgress {
  sessionsDone: number;
  sessionsTotal: number;
  eventsIndexed: number;
}

/** What a sync did. */
export interface SyncReport {
  sessionsAdded: number;
  sessionsUpdated: number;
  sessionsRemoved: number;
  eventsIndexed: number;
  /**
   * Sessions found damaged by this sync (a torn tail, which a live writer may still complete, is
   * not listed): indexed up to the damage, listed with status `damaged`.
   */
  damaged: { sessionId: string; code: string; message: string }[];
}

/** A row of `sessions`. */
export interface SessionRow {
  id: number;
  session_id: string;
  workspace: number;
  created_at: string;
  updated_at: string;
  parent_id: string | null;
  status: string;
  header: string;
  aggregate: string;
  damage_code: string | null;
  damage_message: string | null;
  file_offset: number;
  file_line: number;
  file_size: number;
  file_ino: number;
  file_mtime: number;
}

/** Events per transaction during a sync: large enough to amortize commits. */
const eventsPerTransaction = 50_000;

/**
 * Default number of newly indexed events after which the full-text index gets merge work. Bulk
 * ingestion leaves many segments behind, and a newest-first search must merge them all: measured
 * here, one full merge halves search latency (1.3 → 0.65 ms p50 at 250k events).
 */
const defaultOptimizeAfterEvents = 50_000;

/**
 * Incremental merge work per newly indexed event, in FTS5 leaf pages. A full `optimize` rewrites
 * the whole index, so running it after every large sync made the cost of adding data grow with
 * the data already indexed (200 sessions took 17 s on a 2,000-session index and 118 s on a
 * 20,000-session one); a merge bounded by what was just added keeps adding O(new).
 */
const mergePagesPerEvent = 1 / 8;

interface FileState {
  size: number;
  ino: number;
  mtime: number;
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/** The SQLite index writer. All methods run one at a time (see `exclusive`). */
export class Indexer {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly toolIds = new Map<string, number>();
  private readonly workspaceIds = new Map<string, number>();
  private readonly typeIds = new Map<string, number>();
  private readonly statements;
  /** This transaction's full-text rows, written sorted at its end (see pending-fts.ts). */
  private readonly pendingFts: PendingFtsRows;
  private pendingEvents = 0;
  /**
   * The last run of consecutive event ids found taken when a time key collided (`from`..`to`,
   * `to` the id given last). Events of one millisecond past `KEYS_PER_MS` (an import of a source
   * without times) collide in order, each one inside this run: starting after it keeps each
   * insert at a few lookups, where probing from the event's own slot cost one lookup per taken id
   * (quadratic: 4,000 events of one millisecond took 16 s).
   */
  private takenRun: { from: number; to: number } | undefined;
  /** Events indexed since the last FTS merge (in this process). */
  private unmergedEvents = 0;
  private inTransaction = false;
  /** This connection's `total_changes()` when the open transaction began. */
  private changesAtBegin = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly store: IndexedStore,
    private readonly optimizeAfterEvents = defaultOptimizeAfterEvents,
  ) {
    this.pendingFts = new PendingFtsRows(db);
    this.statements = {
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
    };
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
        if (this.pendingEvents >= eventsPerTransaction) {
          this.commit();
          this.begin();
        }
      }
      this.saveCursor(changes.cursor);
      this.commit();
    } catch (error) {
      this.rollback();
      throw error;
    }
    this.unmergedEvents += report.eventsIndexed;
    if (this.unmergedEvents >= this.optimizeAfterEvents) this.compact(this.unmergedEvents);
    if (bulk) {
      if (this.unmergedEvents > 0) this.optimize();
      this.db.transaction(() => setMergeMode(this.db, "normal"))();
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
      this.rollback();
      throw error;
    }
  }

  private saveCursor(cursor: string | null): void {
    if (cursor === null) this.statements.deleteMeta.run("changes");
    else this.statements.setMeta.run("changes", cursor);
  }

  /**
   * Merge work proportional to `newEvents`: a full `optimize` only when the new events are at
   * least half of the index (then it costs O(new) too: a first index, a rebuild), otherwise an
   * FTS5 `merge` bounded by the pages the new events wrote (see {@link mergePagesPerEvent}).
   */
  compact(newEvents: number): void {
    const total = this.statements.countEvents.get()?.count ?? 0;
    if (newEvents * 2 >= total) {
      this.optimize();
      return;
    }
    const pages = Math.max(16, Math.ceil(newEvents * mergePagesPerEvent));
    this.mergeWork.run(pages);
    this.db.exec("INSERT INTO session_fts(session_fts) VALUES('optimize')");
    this.unmergedEvents = 0;
  }

  /** FTS5 `merge` statements run, for tests that the work stays bounded. */
  mergeRuns = 0;
  /** FTS5 `optimize`s of the event index run, for the same tests. */
  optimizeRuns = 0;

  private readonly mergeWork = {
    run: (pages: number) => {
      this.mergeRuns += 1;
      this.db.prepare("INSERT INTO event_fts(event_fts, rank) VALUES('merge', ?)").run(pages);
    },
  };

  /** Merges the full-text index into one segment (see {@link defaultOptimizeAfterEvents}). */
  optimize(): void {
    this.optimizeRuns += 1;
    this.db.exec("INSERT INTO event_fts(event_fts) VALUES('optimize')");
    this.db.exec("INSERT INTO session_fts(session_fts) VALUES('optimize')");
    this.unmergedEvents = 0;
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
      this.commit();
      return exists;
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  /** Removes every row (the start of a rebuild). */
  clear(): void {
    this.db.transaction(() => {
      this.db.exec(`INSERT INTO event_fts (event_fts) VALUES ('delete-all');
        INSERT INTO session_fts (session_fts) VALUES ('delete-all');
        DELETE FROM events; DELETE FROM sessions; DELETE FROM tools; DELETE FROM workspaces;
        DELETE FROM event_types; DELETE FROM meta WHERE key = 'changes';`);
      this.statements.bumpGeneration.run();
    })();
    this.typeIds.clear();
    this.toolIds.clear();
    this.workspaceIds.clear();
  }

  /** Records damage found by a read (e.g. a broken invariant) against a session. */
  recordDamage(sessionId: string, damage: Damage, seq?: number): void {
    const row = this.statements.sessionRowId.get(sessionId);
    if (row === undefined) return;
    this.db.transaction(() => {
      this.statements.setDamage.run(damage.code, damage.message, row.id);
      // Appended bytes are only seq-checked while indexing; what replay refuses leaves the index.
      if (seq !== undefined) {
        this.pendingFts.write();
        this.statements.deleteEventFtsFrom.run(row.id, seq);
        this.statements.deleteEventsFrom.run(row.id, seq);
      }
      this.statements.bumpGeneration.run();
    })();
  }

  private begin(): void {
    // Ids cached from an earlier sync may be stale if another process rebuilt the index.
    this.toolIds.clear();
    this.typeIds.clear();
    this.workspaceIds.clear();
    // IMMEDIATE: take the write lock now (waiting up to busy_timeout for another process's sync)
    // rather than fail on upgrading a read transaction later.
    this.db.exec("BEGIN IMMEDIATE");
    this.inTransaction = true;
    this.pendingEvents = 0;
    this.changesAtBegin = this.statements.totalChanges.get() as number;
  }

  private commit(): void {
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

  private rollback(): void {
    this.pendingFts.discard();
    if (!this.inTransaction) return;
    this.db.exec("ROLLBACK");
    this.inTransaction = false;
  }

  private removeSession(rowId: number): void {
    // The delete must see the rows this transaction added for the session.
    this.pendingFts.write();
    this.statements.deleteEventFts.run(rowId);
    this.statements.deleteEvents.run(rowId);
    this.statements.deleteSessionFts.run(rowId);
    this.statements.deleteSession.run(rowId);
  }

  private workspaceId(name: string): number {
    let id = this.workspaceIds.get(name);
    if (id === undefined) {
      id =
        this.statements.workspace.get(name)?.id ??
        Number(this.statements.insertWorkspace.run(name).lastInsertRowid);
      this.workspaceIds.set(name, id);
    }
    return id;
  }

  private typeId(name: string): number {
    let id = this.typeIds.get(name);
    if (id === undefined) {
      id =
        this.statements.type.get(name)?.id ??
        Number(this.statements.insertType.run(name).lastInsertRowid);
      this.typeIds.set(name, id);
    }
    return id;
  }

  private toolId(name: string): number {
    let id = this.toolIds.get(name);
    if (id === undefined) {
      id =
        this.statements.tool.get(name)?.id ??
        Number(this.statements.insertTool.run(name).lastInsertRowid);
      this.toolIds.set(name, id);
    }
    return id;
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
      row = this.insertSession(
        entry.header,
        { text: entry.headerText, end: entry.headerEnd },
        file,
      );
      report.sessionsAdded += 1;
    } else {
      report.sessionsUpdated += 1;
    }
    try {
      report.eventsIndexed += await this.ingestEvents(row, file, report);
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

  private insertSession(
    header: SessionHeader,
    headerLine: { text: string; end: number },
    file: FileState,
  ): SessionRow {
    const aggregate = emptyAggregate(header);
    const values = {
      session_id: header.sessionId,
      workspace: this.workspaceId(header.workspaceId),
      created_at: header.createdAt,
      updated_at: header.createdAt,
      parent_id: header.parent?.sessionId ?? null,
      status: statusOf(aggregate, false),
      header: headerLine.text,
      aggregate: JSON.stringify(aggregate),
      file_offset: headerLine.end,
      file_line: 2,
      file_size: -1,
      file_ino: file.ino,
      file_mtime: -1,
    };
    const id = Number(this.statements.insertSession.run(values).lastInsertRowid);
    this.statements.insertSessionFts.run(id, "", header.cwd);
    return { ...values, id, damage_code: null, damage_message: null };
  }

  /** Reads the bytes after the stored offset and indexes their events. */
  private async ingestEvents(
    row: SessionRow,
    file: FileState,
    report: SyncReport,
  ): Promise<number> {
    const header = parseStored<SessionHeader>(row.header);
    const aggregate = parseStored<SessionAggregate>(row.aggregate);
    const promptBefore = aggregate.firstPrompt;
    const validator = IndexValidator.resume(header, aggregate, row);
    const parentRow =
      header.parent === undefined
        ? undefined
        : this.statements.sessionRowId.get(header.parent.sessionId);
    const context = { rowId: row.id, workspace: row.workspace, parentRowId: parentRow?.id ?? -1 };
    let offset = row.file_offset;
    let line = row.file_line;
    let count = 0;
    let lastMs = Date.parse(aggregate.lastEventAt ?? header.createdAt) || 0;
    try {
      for await (const read of this.store.read(row.session_id, {
        fromOffset: logOffsetSchema.parse(offset),
        fromLine: line,
      })) {
        const { event } = read;
        validator.check(event, { line: read.line, offset: read.offset });
        // The index serves only what replay accepts: nothing at or after the first damage.
        if (validator.damage !== null) break;
        addEvent(aggregate, event);
        const ms = Date.parse(event.ts);
        if (!Number.isNaN(ms)) lastMs = ms;
        this.indexEvent(context, event, lastMs, read.offset, read.end - read.offset - 1);
        offset = read.end;
        line = read.line + 1;
        count += 1;
      }
    } catch (error) {
      if (!EventLogCorruptError.isInstance(error)) throw error;
      validator.damage ??= { code: error.code, message: error.message };
    }
    const damage = validator.damage;
    if (damage !== null && damage.code !== "TORN_TAIL" && row.damage_code !== damage.code) {
      report.damaged.push({ sessionId: row.session_id, ...damage });
    }
    this.pendingEvents += count;
    this.statements.updateSession.run({
      id: row.id,
      updated_at: aggregate.lastEventAt ?? header.createdAt,
      status: statusOf(aggregate, damage !== null),
      aggregate: JSON.stringify(aggregate),
      damage_code: damage?.code ?? null,
      damage_message: damage?.message ?? null,
      file_offset: offset,
      file_line: line,
      file_size: file.size,
      file_ino: file.ino,
      file_mtime: file.mtime,
    });
    if (aggregate.firstPrompt !== promptBefore) {
      this.statements.deleteSessionFts.run(row.id);
      this.statements.insertSessionFts.run(
        row.id,
        spaceCjk(aggregate.firstPrompt ?? ""),
        header.cwd,
      );
    }
    return count;
  }

  private indexEvent(
    context: { rowId: number; workspace: number; parentRowId: number },
    event: SessionEvent,
    ms: number,
    offset: number,
    length: number,
  ): void {
    let tool: number | null = null;
    let callId: string | null = null;
    let role: string | null = null;
    if (event.type === "function_call") {
      tool = this.toolId(event.name);
      callId = event.callId;
    } else if (event.type === "function_call_output") {
      callId = event.callId;
      tool = this.statements.callTool.get(callId, context.rowId, context.parentRowId)?.tool ?? null;
    } else if (event.type === "message") {
      role = event.role;
    } else if (typeof (event as { callId?: unknown }).callId === "string") {
      callId = (event as { callId: string }).callId;
    }
    const slot = ms * KEYS_PER_MS + (event.seq % KEYS_PER_MS);
    const run = this.takenRun;
    const inRun = run !== undefined && slot >= run.from && slot <= run.to;
    let key = inRun ? run.to + 1 : slot;
    for (;;) {
      try {
        this.statements.insertEvent.run(
          key,
          context.rowId,
          event.seq,
          offset,
          length,
          this.typeId(event.type),
          role,
          tool,
          callId,
        );
        break;
      } catch (error) {
        if (hasCode(error, "SQLITE_CONSTRAINT_PRIMARYKEY")) {
          // Another event holds this time key: take the next free one.
          key += 1;
          while (this.statements.eventExists.get(key) !== undefined) key += 1;
          continue;
        }
        throw error;
      }
    }
    if (key !== slot) this.takenRun = { from: inRun ? run.from : slot, to: key };
    if (event.type === "compaction") {
      for (const replaced of event.replaces) {
        this.statements.replace.run(event.seq, context.rowId, replaced);
      }
    }
    const text = eventText(event);
    if (text === "") return;
    const tags = [`w${context.workspace}`, `s${context.rowId}`, typeTag(event.type)];
    if (role !== null) tags.push(roleTag(role));
    if (tool !== null) tags.push(`n${tool}`);
    this.pendingFts.add(ftsRowId(key), spaceCjk(text), tags.join(" "));
  }
}
