/**
 * `tapedeck index` with a team index: pushes a home's logs into PostgreSQL.
 *
 * Each log is pushed in its own transaction that also records how far this home got in that
 * file (`tapedeck_push_state`: byte offset, line, size, inode, mtime, header, last seq), so a push
 * killed midway leaves every session either as before or fully advanced, and the next push goes
 * on from there. The session row is locked (`FOR UPDATE`) while its events are added, and events
 * go in with `ON CONFLICT DO NOTHING` on `(session_id, seq)`: machines pushing at once — even the
 * same session copied to two homes — store each event once. Events are sent in multi-row batches
 * (`unnest` of arrays). The local logs are only read.
 */
import { hostname } from "node:os";
import {
  EventLogCorruptError,
  type SessionEvent,
  type SessionHeader,
  SessionNotFoundError,
} from "@tapedeck/session";
import {
  InvalidOffsetError,
  type LogEntry,
  logOffsetSchema,
  type SessionStore,
} from "@tapedeck/session-store";
import type pg from "pg";
import { IndexValidator } from "../index-validator";
import { addEvent, type Damage, emptyAggregate, type SessionAggregate, statusOf } from "../summary";
import { eventText } from "../text";
import type { Connection } from "./connection";
import { toTsvector } from "./text-search";

/** The store methods a push needs (`createSessionStore({ home })`). */
export type PushStore = Pick<SessionStore, "home" | "changesSince" | "entry" | "read">;

/** Options of a push. */
export interface PushOptions {
  /** Recorded as the pushing host of new sessions; default `os.hostname()`. */
  host?: string;
  /** Called after each session with new data, and once at the end. */
  onProgress?: (progress: PushProgress) => void;
  /** Events per INSERT; default 1000. */
  batchSize?: number;
  /** Logs sharing one transaction at most; default 100 (one large log always goes alone). */
  sessionsPerTransaction?: number;
  /**
   * Only these sessions: their logs are pushed, or removed from the index when gone. Default: the
   * sessions the store's change journal names since this home's last push (all of them the first
   * time, or when the journal cannot answer).
   */
  sessionIds?: readonly string[];
  /** Look at every log (a full scan) instead of asking the change journal. */
  full?: boolean;
}

/** Progress of a push. */
export interface PushProgress {
  sessionsDone: number;
  sessionsTotal: number;
  eventsPushed: number;
}

/** What a push did. */
export interface PushReport {
  sessionsAdded: number;
  sessionsUpdated: number;
  sessionsRemoved: number;
  eventsPushed: number;
  /** Bytes of event JSON pushed. */
  bytesPushed: number;
  /**
   * Sessions skipped because the index holds another log under the same id (a different header,
   * pushed from another home).
   */
  conflicts: string[];
}

/** One row of `tapedeck index --stats`. */
export interface HostStats {
  host: string;
  sessions: number;
  events: number;
  /** Bytes of event JSON stored. */
  bytes: number;
}

interface PushState {
  session_id: string;
  header: string;
  file_offset: string;
  file_line: number;
  file_size: string;
  file_ino: string;
  file_mtime: number;
  last_seq: number;
}

interface LockedSession {
  header: string;
  aggregate: SessionAggregate;
  damage_code: string | null;
  damage_message: string | null;
  source: string;
}

interface FileState {
  size: number;
  ino: number;
  mtime: number;
}

/** Events of one session waiting to be inserted. */
class EventBatch {
  seqs: number[] = [];
  times: number[] = [];
  types: string[] = [];
  roles: (string | null)[] = [];
  tools: (string | null)[] = [];
  callIds: (string | null)[] = [];
  lines: string[] = [];
  bodies: (string | null)[] = [];

  get size(): number {
    return this.seqs.length;
  }

  async flush(client: pg.PoolClient, sessionId: string, workspaceId: string): Promise<void> {
    if (this.size === 0) return;
    await client.query(
      `INSERT INTO tapedeck_events
         (session_id, workspace_id, seq, ts_ms, type, role, tool, call_id, line, body)
       SELECT $1::uuid, $2, seq, ts_ms, type, role, tool, call_id, line, body::tsvector
       FROM unnest($3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::text[], $10::text[]) AS t(seq, ts_ms, type, role, tool, call_id, line, body)
       ON CONFLICT (session_id, seq) DO NOTHING`,
      [
        sessionId,
        workspaceId,
        this.seqs,
        this.times,
        this.types,
        this.roles,
        this.tools,
        this.callIds,
        this.lines,
        this.bodies,
      ],
    );
    this.seqs = [];
    this.times = [];
    this.types = [];
    this.roles = [];
    this.tools = [];
    this.callIds = [];
    this.lines = [];
    this.bodies = [];
  }
}

/** Pushes every log of `store` that changed since this home's last push. */
export async function pushStore(
  db: Connection,
  store: PushStore,
  options: PushOptions,
): Promise<PushReport> {
  const host = options.host ?? hostname();
  const source = `${host}:${store.home}`;
  const report: PushReport = {
    sessionsAdded: 0,
    sessionsUpdated: 0,
    sessionsRemoved: 0,
    eventsPushed: 0,
    bytesPushed: 0,
    conflicts: [],
  };
  const work = await planPush(db, store, source, options);
  for (const state of work.removed) {
    await db.transaction(async (client) => {
      const removed = await client.query(
        "DELETE FROM tapedeck_sessions WHERE session_id = $1 AND source = $2",
        [state, source],
      );
      await client.query("DELETE FROM tapedeck_push_state WHERE session_id = $1 AND source = $2", [
        state,
        source,
      ]);
      report.sessionsRemoved += removed.rowCount ?? 0;
    });
  }
  const context = { db, store, host, source, batchSize: options.batchSize ?? 1000, report };
  const jobs = work.logs
    .map(({ sessionId, entry }) => changedLog(sessionId, entry, work.states.get(sessionId)))
    .filter((job): job is LogJob => job !== null);
  let done = 0;
  for (let next = 0; next < jobs.length; ) {
    // Small logs share a transaction (a round trip per statement, not per session, dominates
    // otherwise); they are taken in session id order, so concurrent pushers lock rows in one
    // order and never deadlock.
    const group: LogJob[] = [];
    let bytes = 0;
    while (
      next < jobs.length &&
      group.length < (options.sessionsPerTransaction ?? maxSessionsPerTransaction) &&
      bytes < maxBytesPerTransaction
    ) {
      const job = jobs[next]!;
      next += 1;
      group.push(job);
      bytes += job.file.size - (job.state === undefined ? 0 : Number(job.state.file_offset));
    }
    const before = report.eventsPushed;
    const pending = emptyReport();
    try {
      await db.transaction(async (client) => {
        for (const job of group) await pushEvents({ ...context, report: pending }, client, job);
      }, true);
      mergeReport(report, pending);
    } catch (error) {
      if (!retryAlone(error)) throw error;
      // A log rewritten or removed while we read it: each log of the group on its own.
      for (const job of group) await pushLog(context, job);
    }
    done += group.length;
    if (report.eventsPushed !== before || done === jobs.length) {
      options.onProgress?.({
        sessionsDone: done,
        sessionsTotal: jobs.length,
        eventsPushed: report.eventsPushed,
      });
    }
  }
  if (work.cursor === null) {
    await db.query("DELETE FROM tapedeck_push_cursor WHERE source = $1", [source]);
  } else if (work.cursor !== undefined) {
    // Saved only once everything it covers is pushed: a push killed before this line asks the
    // journal the same question again (and finds most of the answer already pushed).
    await db.query(
      `INSERT INTO tapedeck_push_cursor (source, cursor) VALUES ($1, $2)
       ON CONFLICT (source) DO UPDATE SET cursor = $2, updated_at = now()`,
      [source, work.cursor],
    );
  }
  return report;
}

/** What a push looks at: logs to push, sessions to remove, the journal cursor to save after. */
interface PushPlan {
  logs: { sessionId: string; entry: LogEntry | null }[];
  removed: string[];
  states: Map<string, PushState>;
  /** `undefined`: nothing to save (a push of named sessions); `null`: forget the cursor. */
  cursor?: string | null;
}

async function planPush(
  db: Connection,
  store: PushStore,
  source: string,
  options: PushOptions,
): Promise<PushPlan> {
  if (options.sessionIds !== undefined) {
    const ids = [...new Set(options.sessionIds)].sort();
    const { rows } = await db.query<PushState>(
      "SELECT * FROM tapedeck_push_state WHERE source = $1 AND session_id = ANY($2::uuid[])",
      [source, ids],
    );
    const states = new Map(rows.map((row) => [row.session_id, row]));
    const logs = ids.map((sessionId) => ({ sessionId, entry: store.entry(sessionId) }));
    return {
      logs: logs.filter((log) => log.entry !== null),
      removed: logs
        .filter((log) => log.entry === null && states.has(log.sessionId))
        .map((log) => log.sessionId),
      states,
    };
  }
  const saved = options.full
    ? null
    : ((
        await db.query<{ cursor: string }>(
          "SELECT cursor FROM tapedeck_push_cursor WHERE source = $1",
          [source],
        )
      ).rows[0]?.cursor ?? null);
  const changes = await store.changesSince(saved);
  const { rows } = await db.query<PushState>(
    "SELECT * FROM tapedeck_push_state WHERE source = $1",
    [source],
  );
  const states = new Map(rows.map((row) => [row.session_id, row]));
  if (changes.kind === "scan") {
    const present = new Set(changes.logs.map((log) => log.sessionId));
    return {
      logs: changes.logs
        .map((entry) => ({ sessionId: entry.sessionId, entry }))
        .sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1)),
      removed: [...states.keys()].filter((id) => !present.has(id)),
      states,
      cursor: changes.cursor,
    };
  }
  const named = new Set(changes.sessionIds);
  if (changes.present !== undefined) {
    // The folder changed outside the journal: new names are looked at, pushed logs gone removed.
    const present = new Set(changes.present);
    for (const id of states.keys()) if (!present.has(id)) named.add(id);
    for (const id of present) if (!states.has(id)) named.add(id);
  }
  const logs = [...named].sort().map((sessionId) => ({ sessionId, entry: store.entry(sessionId) }));
  return {
    logs: logs.filter((log) => log.entry !== null),
    removed: logs
      .filter((log) => log.entry === null && states.has(log.sessionId))
      .map((log) => log.sessionId),
    states,
    cursor: changes.cursor,
  };
}

interface PushContext {
  db: Connection;
  store: PushStore;
  host: string;
  source: string;
  batchSize: number;
  report: PushReport;
}

/** A log with something to push. */
interface LogJob {
  header: SessionHeader;
  headerLine: { text: string; end: number };
  file: FileState;
  state: PushState | undefined;
}

/** Sessions per push transaction at most. */
const maxSessionsPerTransaction = 100;
/** New log bytes per push transaction at most (one larger log gets a transaction alone). */
const maxBytesPerTransaction = 8 << 20;

/** The job for a log that changed since this home's last push, else `null`. */
function changedLog(sessionId: string, entry: LogEntry | null, state?: PushState): LogJob | null {
  // A log without a readable header cannot be placed in a workspace: left out, as everywhere.
  if (entry === null || entry.header === undefined || entry.header.sessionId !== sessionId) {
    return null;
  }
  const file: FileState = { size: entry.size, ino: entry.inode, mtime: entry.modifiedMs };
  if (
    state !== undefined &&
    Number(state.file_size) === file.size &&
    Number(state.file_ino) === file.ino &&
    state.file_mtime === file.mtime
  ) {
    return null;
  }
  return {
    header: entry.header,
    headerLine: { text: entry.headerText, end: entry.headerEnd as number },
    file,
    state,
  };
}

/** Errors after which a log is pushed again on its own (the file changed under the reader). */
function retryAlone(error: unknown): boolean {
  return InvalidOffsetError.isInstance(error) || SessionNotFoundError.isInstance(error);
}

function emptyReport(): PushReport {
  return {
    sessionsAdded: 0,
    sessionsUpdated: 0,
    sessionsRemoved: 0,
    eventsPushed: 0,
    bytesPushed: 0,
    conflicts: [],
  };
}

function mergeReport(into: PushReport, from: PushReport): void {
  into.sessionsAdded += from.sessionsAdded;
  into.sessionsUpdated += from.sessionsUpdated;
  into.sessionsRemoved += from.sessionsRemoved;
  into.eventsPushed += from.eventsPushed;
  into.bytesPushed += from.bytesPushed;
  into.conflicts.push(...from.conflicts);
}

/** Pushes one log in its own transaction; a log rewritten in place starts over. */
async function pushLog(context: PushContext, job: LogJob): Promise<void> {
  const attempt = async (reset: boolean) => {
    const pending = emptyReport();
    await context.db.transaction(
      (client) =>
        pushEvents(
          { ...context, report: pending },
          client,
          reset ? { ...job, state: undefined } : job,
          reset,
        ),
      true,
    );
    mergeReport(context.report, pending);
  };
  try {
    await attempt(false);
  } catch (error) {
    if (InvalidOffsetError.isInstance(error)) {
      // The recorded offset is no line start any more: the file was rewritten in place.
      await attempt(true);
      return;
    }
    if (SessionNotFoundError.isInstance(error)) return;
    throw error;
  }
}

/** Inside a transaction: locks the session row, adds the new events, records progress. */
async function pushEvents(
  context: PushContext,
  client: pg.PoolClient,
  job: LogJob,
  forceReset = false,
): Promise<void> {
  const { header, headerLine, file } = job;
  let state = job.state;
  const { report, source } = context;
  const sessionId = header.sessionId;
  const fresh = emptyAggregate(header);
  // Inserts the row if new, and either way locks it and returns it: one round trip. The no-op
  // update is what takes the row lock when it exists.
  const { rows } = await client.query<LockedSession & { inserted: boolean }>(
    `INSERT INTO tapedeck_sessions (session_id, workspace_id, cwd, created_at, updated_at,
       parent_id, status, header, aggregate, search, host, source)
     VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9::tsvector, $10, $11)
     ON CONFLICT (session_id) DO UPDATE SET session_id = EXCLUDED.session_id
     RETURNING header, aggregate, damage_code, damage_message, source, (xmax = 0) AS inserted`,
    [
      sessionId,
      header.workspaceId,
      header.cwd,
      header.createdAt,
      header.parent?.sessionId ?? null,
      statusOf(fresh, false),
      headerLine.text,
      fresh,
      toTsvector(`\n${header.cwd}`),
      context.host,
      source,
    ],
  );
  const row = rows[0];
  if (row === undefined) return;
  const replaced =
    forceReset ||
    (state !== undefined &&
      (Number(state.file_ino) !== file.ino ||
        file.size < Number(state.file_offset) ||
        state.header !== headerLine.text));
  const ours = row.source === source;
  if (row.header !== headerLine.text || replaced) {
    if (!ours) {
      context.report.conflicts.push(sessionId);
      return;
    }
    // This home's log was replaced: its rows start over.
    await client.query("DELETE FROM tapedeck_events WHERE session_id = $1", [sessionId]);
    await client.query(
      `UPDATE tapedeck_sessions SET header = $2, aggregate = $3, damage_code = NULL,
         damage_message = NULL, bytes = 0 WHERE session_id = $1`,
      [sessionId, headerLine.text, fresh],
    );
    row.aggregate = structuredClone(fresh);
    row.damage_code = null;
    row.damage_message = null;
    state = undefined;
  }
  const aggregate = row.aggregate;
  // Events another home already stored (a copied session pushed from two homes) are skipped.
  const skipUpTo =
    aggregate.eventCount > 0 && (state === undefined || aggregate.lastSeq > state.last_seq)
      ? aggregate.lastSeq
      : Number.NEGATIVE_INFINITY;
  const validator = new IndexValidator(header, {
    lastSeq: aggregate.lastSeq,
    fromStart: aggregate.eventCount === 0,
    // A torn tail is checked again: the writer may have finished the line since.
    damage:
      row.damage_code === null || row.damage_code === "TORN_TAIL"
        ? null
        : { code: row.damage_code, message: row.damage_message ?? "" },
  });
  const promptBefore = aggregate.firstPrompt;
  let offset = state === undefined ? headerLine.end : Number(state.file_offset);
  let line = state === undefined ? 2 : state.file_line;
  let lastMs = Date.parse(aggregate.lastEventAt ?? header.createdAt) || 0;
  let count = 0;
  let bytes = 0;
  const batch = new EventBatch();
  const callTools = new Map<string, string>();
  const compactions: { seq: number; replaces: number[] }[] = [];
  let unresolvedOutputs = false;
  let tornTail: Damage | null = null;
  try {
    for await (const read of context.store.read(sessionId, {
      fromOffset: logOffsetSchema.parse(offset),
      fromLine: line,
    })) {
      const { event } = read;
      offset = read.end;
      line = read.line + 1;
      if (event.seq <= skipUpTo) continue;
      validator.check(event, { line: read.line, offset: read.offset });
      addEvent(aggregate, event);
      const ms = Date.parse(event.ts);
      if (!Number.isNaN(ms)) lastMs = ms;
      const json = JSON.stringify(event);
      addRow(batch, event, lastMs, json, callTools);
      if (event.type === "function_call_output" && !callTools.has(event.callId)) {
        unresolvedOutputs = true;
      }
      if (event.type === "compaction") {
        compactions.push({ seq: event.seq, replaces: [...event.replaces] });
      }
      count += 1;
      bytes += read.end - read.offset;
      if (batch.size >= context.batchSize) await batch.flush(client, sessionId, header.workspaceId);
    }
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    if (error.code === "TORN_TAIL") tornTail = { code: error.code, message: error.message };
    else validator.damage ??= { code: error.code, message: error.message };
  }
  await batch.flush(client, sessionId, header.workspaceId);
  for (const compaction of compactions) {
    await client.query(
      `UPDATE tapedeck_events SET replaced_by = $2
       WHERE session_id = $1 AND seq = ANY($3::int[]) AND replaced_by IS NULL`,
      [sessionId, compaction.seq, compaction.replaces],
    );
  }
  if (unresolvedOutputs) {
    // Outputs answering a call pushed earlier, or made in the parent before a fork.
    await client.query(
      `UPDATE tapedeck_events o SET tool = c.tool FROM tapedeck_events c
       WHERE o.session_id = $1 AND o.type = 'function_call_output' AND o.tool IS NULL
         AND c.session_id = ANY($2::uuid[]) AND c.type = 'function_call' AND c.call_id = o.call_id`,
      [sessionId, [sessionId, ...(header.parent === undefined ? [] : [header.parent.sessionId])]],
    );
  }
  const damage = validator.damage ?? tornTail;
  const search = aggregate.firstPrompt !== promptBefore;
  // The session's new totals and this home's progress in its file, in one statement.
  await client.query(
    `WITH updated AS (
       UPDATE tapedeck_sessions SET updated_at = $2, status = $3, aggregate = $4, damage_code = $5,
         damage_message = $6, bytes = bytes + $7, pushed_at = now()${search ? ", search = $16::tsvector" : ""}
       WHERE session_id = $1
     )
     INSERT INTO tapedeck_push_state (source, session_id, header, file_offset, file_line, file_size,
       file_ino, file_mtime, last_seq)
     VALUES ($8, $1, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (source, session_id) DO UPDATE SET header = $9, file_offset = $10, file_line = $11,
       file_size = $12, file_ino = $13, file_mtime = $14, last_seq = $15`,
    [
      sessionId,
      aggregate.lastEventAt ?? header.createdAt,
      statusOf(aggregate, damage !== null),
      aggregate,
      damage?.code ?? null,
      damage?.message ?? null,
      bytes,
      source,
      headerLine.text,
      offset,
      line,
      file.size,
      file.ino,
      file.mtime,
      aggregate.lastSeq,
      ...(search ? [toTsvector(`${aggregate.firstPrompt ?? ""}\n${header.cwd}`)] : []),
    ],
  );
  if (row.inserted) report.sessionsAdded += 1;
  else if (count > 0) report.sessionsUpdated += 1;
  report.eventsPushed += count;
  report.bytesPushed += bytes;
}

/** Adds one event's row to the batch. */
function addRow(
  batch: EventBatch,
  event: SessionEvent,
  ms: number,
  json: string,
  callTools: Map<string, string>,
): void {
  let tool: string | null = null;
  let callId: string | null = null;
  let role: string | null = null;
  if (event.type === "function_call") {
    tool = event.name;
    callId = event.callId;
    callTools.set(callId, tool);
  } else if (event.type === "function_call_output") {
    callId = event.callId;
    tool = callTools.get(callId) ?? null;
  } else if (event.type === "message") {
    role = event.role;
  } else if (typeof (event as { callId?: unknown }).callId === "string") {
    callId = (event as { callId: string }).callId;
  }
  batch.seqs.push(event.seq);
  batch.times.push(ms);
  batch.types.push(event.type);
  batch.roles.push(role);
  batch.tools.push(tool);
  batch.callIds.push(callId);
  batch.lines.push(json);
  batch.bodies.push(toTsvector(eventText(event)));
}
