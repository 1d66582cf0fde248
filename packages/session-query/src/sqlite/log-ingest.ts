/**
 * One log's new bytes into rows: a session's row from its header, then each event read after the
 * stored offset, validated as replay would (`IndexValidator`), into `events` (its id a time key,
 * see `schema.ts`) and its full-text row held back by the open transaction. `indexer.ts` decides
 * which logs to read and in which transactions.
 */
import { EventLogCorruptError, type SessionEvent, type SessionHeader } from "@tapedeck/session";
import { logOffsetSchema } from "@tapedeck/session-store";
import type Database from "better-sqlite3";
import { IndexValidator } from "../index-validator";
import { addEvent, emptyAggregate, type SessionAggregate, statusOf } from "../summary";
import { eventText, spaceCjk } from "../text";
import { ftsRowId, KEYS_PER_MS, roleTag, typeTag } from "./schema";
import { parseStored } from "./stored";
import type { FileState, IndexedStore, SessionRow, SyncReport } from "./sync-types";
import type { WriteTransaction } from "./write-transaction";
import type { WriterStatements } from "./writer-statements";

function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/** Ids of the names in a lookup table (`tools`, `event_types`, `workspaces`), cached. */
class NameIds {
  private readonly ids = new Map<string, number>();

  constructor(
    private readonly select: Database.Statement<[string], { id: number }>,
    private readonly insert: Database.Statement,
  ) {}

  /** The id of `name`, inserted when the table does not hold it yet. */
  of(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.select.get(name)?.id ?? Number(this.insert.run(name).lastInsertRowid);
      this.ids.set(name, id);
    }
    return id;
  }

  /** Forgets the cached ids. */
  clear(): void {
    this.ids.clear();
  }
}

/** Writes the rows of one log's events, inside the writer's open transaction. */
export class LogIngest {
  private readonly toolIds: NameIds;
  private readonly workspaceIds: NameIds;
  private readonly typeIds: NameIds;
  /**
   * The last run of consecutive event ids found taken when a time key collided (`from`..`to`,
   * `to` the id given last). Events of one millisecond past `KEYS_PER_MS` (an import of a source
   * without times) collide in order, each one inside this run: starting after it keeps each
   * insert at a few lookups, where probing from the event's own slot cost one lookup per taken id
   * (quadratic: 4,000 events of one millisecond took 16 s).
   */
  private takenRun: { from: number; to: number } | undefined;

  constructor(
    private readonly statements: WriterStatements,
    private readonly store: Pick<IndexedStore, "read" | "entry">,
    private readonly transaction: WriteTransaction,
  ) {
    this.toolIds = new NameIds(statements.tool, statements.insertTool);
    this.workspaceIds = new NameIds(statements.workspace, statements.insertWorkspace);
    this.typeIds = new NameIds(statements.type, statements.insertType);
  }

  /** Forgets the cached tool, type and workspace ids (the index may have been rebuilt). */
  forgetIds(): void {
    this.toolIds.clear();
    this.typeIds.clear();
    this.workspaceIds.clear();
  }

  /** Adds a session's row (and its `session_fts` row) from its header line; no events yet. */
  insertSession(
    header: SessionHeader,
    headerLine: { text: string; end: number },
    file: FileState,
  ): SessionRow {
    const aggregate = emptyAggregate(header);
    const values = {
      session_id: header.sessionId,
      workspace: this.workspaceIds.of(header.workspaceId),
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

  /**
   * The validator of a session's new bytes: from nothing (a fork: from its parent's prefix) for a
   * session without indexed events, else from the invariant state kept with it. `null` when
   * there are indexed events but no state to go on from (the session is then re-indexed).
   */
  private async validatorOf(
    row: SessionRow,
    header: SessionHeader,
    aggregate: SessionAggregate,
  ): Promise<IndexValidator | null> {
    if (aggregate.eventCount === 0 && row.damage_code === null) {
      return IndexValidator.forNewSession(header, this.store);
    }
    const kept = this.statements.invariants.get(row.id);
    const validator = IndexValidator.resume(
      header,
      aggregate,
      row,
      kept === undefined ? undefined : parseStored<unknown>(kept.state),
    );
    return validator.checksAll || header.parent !== undefined ? validator : null;
  }

  /**
   * Reads the bytes after the stored offset and indexes their events, up to the first damage
   * (listed in `report` when it is new and no torn tail); returns how many it indexed, or `null`
   * when the session must be indexed again from its first event (no invariant state kept).
   */
  async ingestEvents(row: SessionRow, file: FileState, report: SyncReport): Promise<number | null> {
    const header = parseStored<SessionHeader>(row.header);
    const aggregate = parseStored<SessionAggregate>(row.aggregate);
    const promptBefore = aggregate.firstPrompt;
    const validator = await this.validatorOf(row, header, aggregate);
    if (validator === null) return null;
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
    this.transaction.pendingEvents += count;
    const state = validator.snapshot();
    if (state === null) this.statements.deleteInvariants.run(row.id);
    else this.statements.setInvariants.run(row.id, JSON.stringify(state));
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
      tool = this.toolIds.of(event.name);
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
          this.typeIds.of(event.type),
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
    this.transaction.pendingFts.add(ftsRowId(key), spaceCjk(text), tags.join(" "));
  }
}
