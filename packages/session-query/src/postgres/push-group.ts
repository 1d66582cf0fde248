/**
 * One push transaction: a group of logs (up to 100 small ones, or one large one) pushed together.
 * Round trips are per group, not per log: one statement creates or locks every session row of the
 * group (in session id order, so concurrent pushers never deadlock), the events of all its logs
 * share multi-row batches sent without waiting for the previous one's answer (the next batch is
 * built while the server stores the last), and one statement records every session's new totals
 * and this home's progress. A statement's failure surfaces before the commit (a transaction whose
 * statement failed is never committed).
 */
import { EventLogCorruptError, type SessionEvent, type SessionHeader } from "@tapedeck/session";
import { logOffsetSchema } from "@tapedeck/session-store";
import type pg from "pg";
import { IndexValidator } from "../index-validator";
import { addEvent, type Damage, emptyAggregate, type SessionAggregate, statusOf } from "../summary";
import { eventText } from "../text";
import type { LogJob, PushContext, PushReport } from "./push-types";
import { toTsvector } from "./text-search";

interface LockedSession {
  session_id: string;
  header: string;
  aggregate: SessionAggregate;
  damage_code: string | null;
  damage_message: string | null;
  source: string;
  inserted: boolean;
}

/** Statements sent without waiting for their answers; every answer is checked by `drain`. */
class Pipeline {
  private pending: Promise<unknown>[] = [];
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: pg.PoolClient) {}

  /** Queues a statement: it goes to the server when the previous one is answered. */
  send(sql: string, params: unknown[]): void {
    // After a failure nothing more is sent: every later answer is that failure.
    const answer = this.last.then(() => this.client.query(sql, params));
    // Checked in order by `wait`/`drain`; until then a failure must not be an unhandled rejection.
    answer.catch(() => undefined);
    this.last = answer;
    this.pending.push(answer);
  }

  /** Waits until at most `inFlight` statements are unanswered (bounds memory). */
  async wait(inFlight: number): Promise<void> {
    while (this.pending.length > inFlight) await this.pending.shift();
  }

  drain(): Promise<void> {
    return this.wait(0);
  }
}

/** Events of a group of logs waiting to be inserted. */
class EventBatch {
  sessions: string[] = [];
  workspaces: string[] = [];
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

  /** Sends the batch (if any) and starts a new one. */
  flush(pipeline: Pipeline): void {
    if (this.size === 0) return;
    pipeline.send(
      `INSERT INTO tapedeck_events
         (session_id, workspace_id, seq, ts_ms, type, role, tool, call_id, line, body)
       SELECT session_id, workspace_id, seq, ts_ms, type, role, tool, call_id, line, body::tsvector
       FROM unnest($1::uuid[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[],
         $7::text[], $8::text[], $9::text[], $10::text[])
         AS t(session_id, workspace_id, seq, ts_ms, type, role, tool, call_id, line, body)
       ON CONFLICT (session_id, seq) DO NOTHING`,
      [
        this.sessions,
        this.workspaces,
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
    this.sessions = [];
    this.workspaces = [];
    this.seqs = [];
    this.times = [];
    this.types = [];
    this.roles = [];
    this.tools = [];
    this.callIds = [];
    this.lines = [];
    this.bodies = [];
  }

  /** Adds one event's row. */
  add(
    sessionId: string,
    workspaceId: string,
    event: SessionEvent,
    ms: number,
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
    this.sessions.push(sessionId);
    this.workspaces.push(workspaceId);
    this.seqs.push(event.seq);
    this.times.push(ms);
    this.types.push(event.type);
    this.roles.push(role);
    this.tools.push(tool);
    this.callIds.push(callId);
    this.lines.push(JSON.stringify(event));
    this.bodies.push(toTsvector(eventText(event)));
  }
}

/** Each session's new totals and this home's progress in its file, sent as one statement. */
class Progress {
  ids: string[] = [];
  updated: string[] = [];
  statuses: string[] = [];
  aggregates: string[] = [];
  damageCodes: (string | null)[] = [];
  damageMessages: (string | null)[] = [];
  bytes: number[] = [];
  searches: (string | null)[] = [];
  setSearch: boolean[] = [];
  headers: string[] = [];
  offsets: number[] = [];
  lines: number[] = [];
  sizes: number[] = [];
  inodes: number[] = [];
  mtimes: number[] = [];
  lastSeqs: number[] = [];

  send(pipeline: Pipeline, source: string): void {
    if (this.ids.length === 0) return;
    pipeline.send(
      `WITH f AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
           $6::text[], $7::bigint[], $8::text[], $9::boolean[], $10::text[], $11::bigint[],
           $12::int[], $13::bigint[], $14::numeric[], $15::float8[], $16::int[])
           AS f(session_id, updated_at, status, aggregate, damage_code, damage_message, bytes,
             search, set_search, header, file_offset, file_line, file_size, file_ino, file_mtime,
             last_seq)
       ), updated AS (
         UPDATE tapedeck_sessions s SET updated_at = f.updated_at, status = f.status,
           aggregate = f.aggregate::jsonb, damage_code = f.damage_code,
           damage_message = f.damage_message, bytes = s.bytes + f.bytes, pushed_at = now(),
           search = CASE WHEN f.set_search THEN f.search::tsvector ELSE s.search END
         FROM f WHERE s.session_id = f.session_id
       )
       INSERT INTO tapedeck_push_state (source, session_id, header, file_offset, file_line,
         file_size, file_ino, file_mtime, last_seq)
       SELECT $17, session_id, header, file_offset, file_line, file_size, file_ino, file_mtime,
         last_seq FROM f
       ON CONFLICT (source, session_id) DO UPDATE SET header = EXCLUDED.header,
         file_offset = EXCLUDED.file_offset, file_line = EXCLUDED.file_line,
         file_size = EXCLUDED.file_size, file_ino = EXCLUDED.file_ino,
         file_mtime = EXCLUDED.file_mtime, last_seq = EXCLUDED.last_seq`,
      [
        this.ids,
        this.updated,
        this.statuses,
        this.aggregates,
        this.damageCodes,
        this.damageMessages,
        this.bytes,
        this.searches,
        this.setSearch,
        this.headers,
        this.offsets,
        this.lines,
        this.sizes,
        this.inodes,
        this.mtimes,
        this.lastSeqs,
        source,
      ],
    );
  }
}

/**
 * Creates (if new) and locks the session rows of a group, in the given (session id) order, and
 * returns them: one round trip. The no-op update is what takes the lock when a row exists.
 */
async function lockSessions(
  client: pg.PoolClient,
  context: PushContext,
  jobs: readonly LogJob[],
): Promise<Map<string, LockedSession>> {
  const columns = {
    ids: [] as string[],
    workspaces: [] as string[],
    cwds: [] as string[],
    created: [] as string[],
    parents: [] as (string | null)[],
    statuses: [] as string[],
    headers: [] as string[],
    aggregates: [] as string[],
    searches: [] as (string | null)[],
  };
  for (const { header, headerLine } of jobs) {
    const fresh = emptyAggregate(header);
    columns.ids.push(header.sessionId);
    columns.workspaces.push(header.workspaceId);
    columns.cwds.push(header.cwd);
    columns.created.push(header.createdAt);
    columns.parents.push(header.parent?.sessionId ?? null);
    columns.statuses.push(statusOf(fresh, false));
    columns.headers.push(headerLine.text);
    columns.aggregates.push(JSON.stringify(fresh));
    columns.searches.push(toTsvector(`\n${header.cwd}`));
  }
  const { rows } = await client.query<LockedSession>(
    `INSERT INTO tapedeck_sessions (session_id, workspace_id, cwd, created_at, updated_at,
       parent_id, status, header, aggregate, search, host, source)
     SELECT id, workspace_id, cwd, created_at, created_at, parent_id, status, header,
       aggregate::jsonb, search::tsvector, $10, $11
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[],
       $7::text[], $8::text[], $9::text[]) WITH ORDINALITY
       AS t(id, workspace_id, cwd, created_at, parent_id, status, header, aggregate, search, n)
     ORDER BY n
     ON CONFLICT (session_id) DO UPDATE SET session_id = EXCLUDED.session_id
     RETURNING session_id, header, aggregate, damage_code, damage_message, source,
       (xmax = 0) AS inserted`,
    [
      columns.ids,
      columns.workspaces,
      columns.cwds,
      columns.created,
      columns.parents,
      columns.statuses,
      columns.headers,
      columns.aggregates,
      columns.searches,
      context.host,
      context.source,
    ],
  );
  return new Map(rows.map((row) => [row.session_id, row]));
}

/**
 * Inside a transaction: locks the group's session rows, adds each log's new events, records each
 * session's totals and this home's progress. `reset`: the logs were rewritten in place, their rows
 * start over.
 */
export async function pushGroup(
  context: PushContext,
  report: PushReport,
  client: pg.PoolClient,
  jobs: readonly LogJob[],
  reset = false,
): Promise<void> {
  const locked = await lockSessions(client, context, jobs);
  const pipeline = new Pipeline(client);
  const batch = new EventBatch();
  const progress = new Progress();
  try {
    for (const job of jobs) {
      const row = locked.get(job.header.sessionId);
      if (row === undefined) continue;
      await pushLogEvents(context, report, { pipeline, batch, progress }, job, row, reset);
    }
    batch.flush(pipeline);
    progress.send(pipeline, context.source);
  } finally {
    // Every statement sent is answered before the commit or rollback; the first failure throws.
    await pipeline.drain();
  }
}

interface GroupWriter {
  pipeline: Pipeline;
  batch: EventBatch;
  progress: Progress;
}

/** One log of a group: its new events into the batch, its totals into the progress. */
async function pushLogEvents(
  context: PushContext,
  report: PushReport,
  writer: GroupWriter,
  job: LogJob,
  row: LockedSession,
  forceReset: boolean,
): Promise<void> {
  const { header, headerLine, file } = job;
  const { pipeline, batch, progress } = writer;
  let state = forceReset ? undefined : job.state;
  const sessionId = header.sessionId;
  const fresh = emptyAggregate(header);
  const replaced =
    forceReset ||
    (state !== undefined &&
      (Number(state.file_ino) !== file.ino ||
        file.size < Number(state.file_offset) ||
        state.header !== headerLine.text));
  if (row.header !== headerLine.text || replaced) {
    if (row.source !== context.source) {
      report.conflicts.push(sessionId);
      return;
    }
    // This home's log was replaced: its rows start over.
    pipeline.send("DELETE FROM tapedeck_events WHERE session_id = $1", [sessionId]);
    pipeline.send(
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
  const validator = IndexValidator.resume(header, aggregate, row);
  const promptBefore = aggregate.firstPrompt;
  let offset = state === undefined ? headerLine.end : Number(state.file_offset);
  let line = state === undefined ? 2 : state.file_line;
  let lastMs = Date.parse(aggregate.lastEventAt ?? header.createdAt) || 0;
  let count = 0;
  let bytes = 0;
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
      batch.add(sessionId, header.workspaceId, event, lastMs, callTools);
      if (event.type === "function_call_output" && !callTools.has(event.callId)) {
        unresolvedOutputs = true;
      }
      if (event.type === "compaction") {
        compactions.push({ seq: event.seq, replaces: [...event.replaces] });
      }
      count += 1;
      bytes += read.end - read.offset;
      if (batch.size >= context.batchSize) {
        batch.flush(pipeline);
        // One batch in flight while the next is built: the server and this process overlap.
        await pipeline.wait(1);
      }
    }
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    if (error.code === "TORN_TAIL") tornTail = { code: error.code, message: error.message };
    else validator.damage ??= { code: error.code, message: error.message };
  }
  if (compactions.length > 0 || unresolvedOutputs) batch.flush(pipeline);
  for (const compaction of compactions) {
    pipeline.send(
      `UPDATE tapedeck_events SET replaced_by = $2
       WHERE session_id = $1 AND seq = ANY($3::int[]) AND replaced_by IS NULL`,
      [sessionId, compaction.seq, compaction.replaces],
    );
  }
  if (unresolvedOutputs) {
    // Outputs answering a call pushed earlier, or made in the parent before a fork.
    pipeline.send(
      `UPDATE tapedeck_events o SET tool = c.tool FROM tapedeck_events c
       WHERE o.session_id = $1 AND o.type = 'function_call_output' AND o.tool IS NULL
         AND c.session_id = ANY($2::uuid[]) AND c.type = 'function_call' AND c.call_id = o.call_id`,
      [sessionId, [sessionId, ...(header.parent === undefined ? [] : [header.parent.sessionId])]],
    );
  }
  const damage = validator.damage ?? tornTail;
  const search = aggregate.firstPrompt !== promptBefore;
  addProgress(progress, {
    header,
    headerText: headerLine.text,
    aggregate,
    damage,
    bytes,
    search,
    offset,
    line,
    file: job.file,
  });
  if (row.inserted) report.sessionsAdded += 1;
  else if (count > 0) report.sessionsUpdated += 1;
  report.eventsPushed += count;
  report.bytesPushed += bytes;
}

function addProgress(
  progress: Progress,
  log: {
    header: SessionHeader;
    headerText: string;
    aggregate: SessionAggregate;
    damage: Damage | null;
    bytes: number;
    search: boolean;
    offset: number;
    line: number;
    file: LogJob["file"];
  },
): void {
  const { header, aggregate, damage } = log;
  progress.ids.push(header.sessionId);
  progress.updated.push(aggregate.lastEventAt ?? header.createdAt);
  progress.statuses.push(statusOf(aggregate, damage !== null));
  progress.aggregates.push(JSON.stringify(aggregate));
  progress.damageCodes.push(damage?.code ?? null);
  progress.damageMessages.push(damage?.message ?? null);
  progress.bytes.push(log.bytes);
  progress.searches.push(
    log.search ? toTsvector(`${aggregate.firstPrompt ?? ""}\n${header.cwd}`) : null,
  );
  progress.setSearch.push(log.search);
  progress.headers.push(log.headerText);
  progress.offsets.push(log.offset);
  progress.lines.push(log.line);
  progress.sizes.push(log.file.size);
  progress.inodes.push(log.file.ino);
  progress.mtimes.push(log.file.mtime);
  progress.lastSeqs.push(aggregate.lastSeq);
}
