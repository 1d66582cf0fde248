/**
 * One push transaction: a group of logs (up to 100 small ones, or one large one) pushed together.
 * Round trips are per group, not per log: one statement creates or locks every session row of the
 * group (in session id order, so concurrent pushers never deadlock), the events of all its logs
 * share multi-row batches sent without waiting for the previous one's answer (the next batch is
 * built while the server stores the last), and one statement records every session's new totals
 * and this home's progress. A statement's failure surfaces before the commit (a transaction whose
 * statement failed is never committed).
 */
import { EventLogCorruptError, parseEventLine, type SessionHeader } from "@tapedeck/session";
import { logOffsetSchema } from "@tapedeck/session-store";
import type pg from "pg";
import { IndexValidator } from "../index-validator";
import { addEvent, type Damage, emptyAggregate, type SessionAggregate, statusOf } from "../summary";
import { divergedJob, divergedSessionId } from "./diverge";
import { EventBatch, Pipeline, Progress } from "./push-batches";
import type { LogJob, PushContext, PushReport, PushState } from "./push-types";
import { toTsvector } from "./text-search";

interface LockedSession {
  session_id: string;
  header: string;
  aggregate: SessionAggregate;
  damage_code: string | null;
  damage_message: string | null;
  source: string;
  host: string;
  inserted: boolean;
}

/**
 * Creates (if new) and locks the session rows of a group, in the given (session id) order, and
 * returns them: one round trip. The no-op update is what takes the lock when a row exists.
 */
async function lockSessions(
  pipeline: Pipeline,
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
  for (const { header, headerText } of jobs) {
    const fresh = emptyAggregate(header);
    columns.ids.push(header.sessionId);
    columns.workspaces.push(header.workspaceId);
    columns.cwds.push(header.cwd);
    columns.created.push(header.createdAt);
    columns.parents.push(header.parent?.sessionId ?? null);
    columns.statuses.push(statusOf(fresh, false));
    columns.headers.push(headerText);
    columns.aggregates.push(JSON.stringify(fresh));
    columns.searches.push(toTsvector(`\n${header.cwd}`));
  }
  const { rows } = await pipeline.query<LockedSession>(
    `INSERT INTO tapedeck_sessions (session_id, workspace_id, cwd, created_at, updated_at,
       parent_id, status, header, aggregate, search, host, source)
     SELECT id, workspace_id, cwd, created_at, created_at, parent_id, status, header,
       aggregate::jsonb, search::tsvector, $10, $11
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[],
       $7::text[], $8::text[], $9::text[]) WITH ORDINALITY
       AS t(id, workspace_id, cwd, created_at, parent_id, status, header, aggregate, search, n)
     ORDER BY n
     ON CONFLICT (session_id) DO UPDATE SET session_id = EXCLUDED.session_id
     RETURNING session_id, header, aggregate, damage_code, damage_message, source, host,
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
 * start over. `earlier`: settles when the group before this one is committed (or failed).
 */
export async function pushGroup(
  context: PushContext,
  report: PushReport,
  client: pg.PoolClient,
  jobs: readonly LogJob[],
  options: { reset?: boolean; earlier?: Promise<unknown> | undefined } = {},
): Promise<void> {
  const { reset = false, earlier } = options;
  const pipeline = new Pipeline(client);
  const writer: GroupWriter = {
    pipeline,
    batch: new EventBatch(),
    progress: new Progress(),
    unresolved: [],
  };
  try {
    const locked = await lockSessions(pipeline, context, jobs);
    for (const job of jobs) {
      let next: LogJob | null = job;
      let row = locked.get(job.header.sessionId);
      let restart = reset;
      while (next !== null && row !== undefined) {
        const then: LogJob | null = await pushLogEvents(
          context,
          report,
          writer,
          next,
          row,
          restart,
        );
        restart = false;
        next = then;
        // A divergence fork (or the log again from its start): its row locked after the group's.
        if (then !== null)
          row = (await lockSessions(pipeline, context, [then])).get(then.header.sessionId);
      }
    }
    writer.batch.flush(pipeline);
    if (writer.unresolved.length > 0) {
      // Outputs answering a call pushed earlier, or made in the parent before a fork — which an
      // earlier group may hold: it is committed first, as if the groups ran one after the other.
      await earlier;
      pipeline.send(
        `UPDATE tapedeck_events o SET tool = c.tool
         FROM tapedeck_sessions s, tapedeck_events c
         WHERE o.session_id = ANY($1::uuid[]) AND o.type = 'function_call_output'
           AND o.tool IS NULL AND s.session_id = o.session_id
           AND c.session_id IN (o.session_id, s.parent_id) AND c.type = 'function_call'
           AND c.call_id = o.call_id`,
        [writer.unresolved],
      );
    }
    writer.progress.send(pipeline, context.source);
  } finally {
    // Every statement sent is answered before the commit or rollback; the first failure throws.
    await pipeline.drain();
  }
}

interface GroupWriter {
  pipeline: Pipeline;
  batch: EventBatch;
  progress: Progress;
  /** Sessions with outputs whose call was not among the events pushed with them. */
  unresolved: string[];
}

/** Whether a stored event line holds the same event as one read here. */
function sameEvent(stored: string | undefined, json: string): boolean {
  if (stored === undefined) return false;
  return stored === json || JSON.stringify(parseEventLine(stored)) === json;
}

/**
 * The validator of a log's new events: from nothing (a fork: from its parent's prefix, read from
 * this home's logs) when the session holds none, else from the invariant state this home kept
 * after its last pushed event (seq continuity alone without one: pushed by an older version, or
 * another home pushed events after ours).
 */
async function validatorOf(
  context: PushContext,
  header: SessionHeader,
  aggregate: SessionAggregate,
  row: LockedSession,
  state: PushState | undefined,
): Promise<IndexValidator> {
  if (aggregate.eventCount === 0 && row.damage_code === null) {
    return IndexValidator.forNewSession(header, context.store);
  }
  const kept = state?.invariants;
  return IndexValidator.resume(
    header,
    aggregate,
    row,
    kept === undefined || kept === null ? undefined : parseKept(kept),
  );
}

/** The kept invariant state (this index's own JSON); `undefined` when it cannot be read. */
function parseKept(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One log of a group: its new events into the batch, its totals into the progress. Returns what
 * to push next in this transaction: the fork holding this home's continuation when it diverges
 * from the stored session, or the log compared again from its start when its fork is dropped
 * (the log was replaced); else `null`.
 */
async function pushLogEvents(
  context: PushContext,
  report: PushReport,
  writer: GroupWriter,
  job: LogJob,
  row: LockedSession,
  forceReset: boolean,
): Promise<LogJob | null> {
  const { header, local } = job;
  const { pipeline, batch, progress } = writer;
  const start = startOver(context, report, writer, job, row, forceReset);
  if ("next" in start) return start.next;
  const { state } = start;
  const sessionId = header.sessionId;
  const aggregate = row.aggregate;
  // The last seq this home pushed; the index may hold more, from other homes with a copy.
  let ownLast = state?.last_seq ?? header.parent?.seq ?? 0;
  const compareUpTo =
    aggregate.eventCount > 0 && aggregate.lastSeq > ownLast
      ? aggregate.lastSeq
      : Number.NEGATIVE_INFINITY;
  let stored = new Map<number, string>();
  if (compareUpTo > ownLast) {
    // Events another home stored after ours: ours are compared with them, not stored twice.
    const { rows } = await pipeline.query<{ seq: number; line: string }>(
      "SELECT seq, line FROM tapedeck_events WHERE session_id = $1 AND seq > $2 AND seq <= $3",
      [sessionId, ownLast, compareUpTo],
    );
    stored = new Map(rows.map((stored) => [stored.seq, stored.line]));
  }
  const validator = await validatorOf(context, header, aggregate, row, state);
  const promptBefore = aggregate.firstPrompt;
  let offset = state === undefined ? local.eventsStart : Number(state.file_offset);
  let line = state === undefined ? 2 : state.file_line;
  let lastMs = Date.parse(aggregate.lastEventAt ?? header.createdAt) || 0;
  let count = 0;
  let bytes = 0;
  const callTools = new Map<string, string>();
  const compactions: { seq: number; replaces: number[] }[] = [];
  let unresolvedOutputs = false;
  let tornTail: Damage | null = null;
  let diverged: { seq: number; offset: number; line: number } | null = null;
  try {
    for await (const read of context.store.read(local.sessionId, {
      fromOffset: logOffsetSchema.parse(offset),
      fromLine: line,
    })) {
      const { event } = read;
      if (event.seq <= compareUpTo) {
        if (!sameEvent(stored.get(event.seq), JSON.stringify(event))) {
          diverged = { seq: event.seq, offset: read.offset, line: read.line };
          break;
        }
        offset = read.end;
        line = read.line + 1;
        ownLast = event.seq;
        continue;
      }
      validator.check(event, { line: read.line, offset: read.offset });
      // The index serves only what replay accepts: nothing at or after the first damage.
      if (validator.damage !== null) break;
      offset = read.end;
      line = read.line + 1;
      ownLast = event.seq;
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
  // Seqs before a divergence are all compared, never stored: nothing of this log was added.
  if (diverged !== null) return divergence(context, report, job, row, diverged);
  if (compactions.length > 0) batch.flush(pipeline);
  for (const compaction of compactions) {
    pipeline.send(
      `UPDATE tapedeck_events SET replaced_by = $2
       WHERE session_id = $1 AND seq = ANY($3::int[]) AND replaced_by IS NULL`,
      [sessionId, compaction.seq, compaction.replaces],
    );
  }
  if (unresolvedOutputs) writer.unresolved.push(sessionId);
  const damage = validator.damage ?? tornTail;
  const invariants = validator.snapshot();
  addProgress(progress, {
    job,
    aggregate,
    damage,
    invariants: invariants === null ? null : JSON.stringify(invariants),
    bytes,
    search: aggregate.firstPrompt !== promptBefore,
    offset,
    line,
    ownLast,
  });
  if (row.inserted) report.sessionsAdded += 1;
  else if (count > 0) report.sessionsUpdated += 1;
  report.eventsPushed += count;
  report.bytesPushed += bytes;
  return null;
}

/** A log that diverges from the stored session at `diverged`: reported, and its fork to push. */
function divergence(
  context: PushContext,
  report: PushReport,
  job: LogJob,
  row: LockedSession,
  diverged: { seq: number; offset: number; line: number },
): LogJob {
  const { file, local } = job;
  report.diverged.push({
    sessionId: local.sessionId,
    seq: diverged.seq,
    storedAs: divergedSessionId(local.sessionId, context.source, diverged.seq),
    host: row.host,
  });
  return divergedJob(job, local.header, context.source, {
    session_id: local.sessionId,
    header: local.headerText,
    file_offset: String(diverged.offset),
    file_line: diverged.line,
    file_size: String(file.size),
    file_ino: String(file.ino),
    file_mtime: file.mtime,
    last_seq: diverged.seq - 1,
    diverged_at: diverged.seq,
  });
}

/**
 * Where {@link pushLogEvents} continues from: the log's saved push state; none when its rows
 * start over (the stored header differs, or this home's log was replaced: it is reset here); or
 * what to return at once (`next`): `null` for a log another home owns (a conflict), or the log to
 * compare again when its diverged fork is dropped.
 */
function startOver(
  context: PushContext,
  report: PushReport,
  writer: GroupWriter,
  job: LogJob,
  row: LockedSession,
  forceReset: boolean,
): { state: LogJob["state"] } | { next: LogJob | null } {
  const { header, file, local } = job;
  const { pipeline } = writer;
  const state = forceReset ? undefined : job.state;
  const sessionId = header.sessionId;
  const replaced =
    forceReset ||
    (state !== undefined &&
      (Number(state.file_ino) !== file.ino ||
        file.size < Number(state.file_offset) ||
        // Same size, other time: changed in place (an append always grows the file).
        (file.size === Number(state.file_size) && file.mtime !== state.file_mtime) ||
        state.header !== local.headerText));
  if (row.header === job.headerText && !replaced) return { state };
  if (row.source !== context.source) {
    report.conflicts.push(local.sessionId);
    return { next: null };
  }
  if (job.state?.diverged_at != null) {
    // This home's diverged log was replaced: its fork goes, the log is compared again.
    pipeline.send("DELETE FROM tapedeck_sessions WHERE session_id = $1", [sessionId]);
    pipeline.send("DELETE FROM tapedeck_push_state WHERE source = $1 AND session_id = $2", [
      context.source,
      local.sessionId,
    ]);
    return {
      next: { ...job, header: local.header, headerText: local.headerText, state: undefined },
    };
  }
  // This home's log was replaced: its rows start over.
  const fresh = emptyAggregate(header);
  pipeline.send("DELETE FROM tapedeck_events WHERE session_id = $1", [sessionId]);
  pipeline.send(
    `UPDATE tapedeck_sessions SET header = $2, aggregate = $3, damage_code = NULL,
       damage_message = NULL, bytes = 0 WHERE session_id = $1`,
    [sessionId, job.headerText, fresh],
  );
  row.aggregate = structuredClone(fresh);
  row.damage_code = null;
  row.damage_message = null;
  return { state: undefined };
}

function addProgress(
  progress: Progress,
  log: {
    job: LogJob;
    aggregate: SessionAggregate;
    damage: Damage | null;
    invariants: string | null;
    bytes: number;
    search: boolean;
    offset: number;
    line: number;
    ownLast: number;
  },
): void {
  const { job, aggregate, damage } = log;
  const { header } = job;
  progress.ids.push(header.sessionId);
  progress.localIds.push(job.local.sessionId);
  progress.divergedAt.push(job.state?.diverged_at ?? null);
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
  progress.headers.push(job.local.headerText);
  progress.offsets.push(log.offset);
  progress.lines.push(log.line);
  progress.sizes.push(job.file.size);
  progress.inodes.push(job.file.ino);
  progress.mtimes.push(job.file.mtime);
  progress.lastSeqs.push(log.ownLast);
  progress.invariants.push(log.invariants);
}
