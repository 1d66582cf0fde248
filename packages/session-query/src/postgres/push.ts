/**
 * `tapedeck index` with a team index: pushes a home's logs into PostgreSQL.
 *
 * Logs are pushed in transactions of up to 100 small logs (or one large one, see
 * `push-group.ts`) that also record how far this home got in each file (`tapedeck_push_state`:
 * byte offset, line, size, inode, mtime, header, last seq), so a push killed midway leaves every
 * session either as before or fully advanced, and the next push goes on from there. Session rows
 * are locked while their events are added, and events go in with `ON CONFLICT DO NOTHING` on
 * `(session_id, seq)`: machines pushing at once — even the same session copied to two homes —
 * store each event once. The local logs are only read.
 */
import { hostname } from "node:os";
import { SessionNotFoundError } from "@tapedeck/session";
import { InvalidOffsetError, type LogEntry } from "@tapedeck/session-store";
import type { Connection } from "./connection";
import { divergedJob, divergedSessionId } from "./diverge";
import { pushGroup } from "./push-group";
import type {
  FileState,
  LogJob,
  PushContext,
  PushOptions,
  PushReport,
  PushState,
  PushStore,
} from "./push-types";

/** Pushes every log of `store` that changed since this home's last push. */
export async function pushStore(
  db: Connection,
  store: PushStore,
  options: PushOptions,
): Promise<PushReport> {
  const host = options.host ?? hostname();
  const source = `${host}:${store.home}`;
  const report = emptyReport();
  const work = await planPush(db, store, source, options);
  for (const state of work.removed) {
    const stored = work.states.get(state)?.diverged_at;
    // This home's rows: the session, or the fork its diverged copy was pushed as.
    const ids = [state, ...(stored == null ? [] : [divergedSessionId(state, source, stored)])];
    await db.transaction(async (client) => {
      const removed = await client.query(
        "DELETE FROM tapedeck_sessions WHERE session_id = ANY($1::uuid[]) AND source = $2",
        [ids, source],
      );
      await client.query("DELETE FROM tapedeck_push_state WHERE session_id = $1 AND source = $2", [
        state,
        source,
      ]);
      report.sessionsRemoved += removed.rowCount ?? 0;
    });
  }
  const context: PushContext = {
    db,
    store,
    host,
    source,
    batchSize: options.batchSize ?? 1000,
  };
  const jobs = work.logs
    .map(({ sessionId, entry }) => changedLog(sessionId, entry, source, work.states.get(sessionId)))
    .filter((job): job is LogJob => job !== null);
  // Groups of logs, each one transaction. Small logs share a transaction (a round trip per
  // statement, not per log, dominates otherwise); they are taken in session id order, so
  // concurrent pushers lock rows in one order and never deadlock.
  const groups: LogJob[][] = [];
  for (let next = 0; next < jobs.length; ) {
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
    groups.push(group);
  }
  let done = 0;
  let taken = 0;
  let failed = false;
  const committed: Promise<void>[] = [];
  // Two transactions at a time on two connections: while the server stores one group, this
  // process reads and prepares the next (neither side waits for the other).
  const worker = async (): Promise<void> => {
    while (!failed && taken < groups.length) {
      const index = taken;
      const group = groups[index]!;
      taken += 1;
      const pending = emptyReport();
      const earlier = committed[index - 1];
      let settled = () => {};
      committed[index] = new Promise<void>((resolve) => {
        settled = resolve;
      });
      try {
        await db.transaction(
          (client) => pushGroup(context, pending, client, group, { earlier }),
          true,
        );
        mergeReport(report, pending);
      } catch (error) {
        if (!retryAlone(error)) {
          failed = true;
          throw error;
        }
        // A log rewritten or removed while we read it: each log of the group on its own.
        await earlier;
        for (const job of group) await pushLog(context, report, job);
      } finally {
        settled();
      }
      done += group.length;
      if (pending.eventsPushed > 0 || done === jobs.length) {
        options.onProgress?.({
          sessionsDone: done,
          sessionsTotal: jobs.length,
          eventsPushed: report.eventsPushed,
        });
      }
    }
  };
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(transactionsAtOnce, groups.length) }, worker),
  );
  for (const outcome of workers) if (outcome.status === "rejected") throw outcome.reason;
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

/** Push transactions running at once (on as many connections). */
const transactionsAtOnce = 2;
/** Sessions per push transaction at most. */
const maxSessionsPerTransaction = 100;
/** New log bytes per push transaction at most (one larger log gets a transaction alone). */
const maxBytesPerTransaction = 8 << 20;

/** The job for a log that changed since this home's last push, else `null`. */
function changedLog(
  sessionId: string,
  entry: LogEntry | null,
  source: string,
  state?: PushState,
): LogJob | null {
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
  const job: LogJob = {
    header: entry.header,
    headerText: entry.headerText,
    local: {
      sessionId,
      header: entry.header,
      headerText: entry.headerText,
      eventsStart: entry.headerEnd as number,
    },
    file,
    state,
  };
  return state?.diverged_at == null
    ? job
    : divergedJob(job, entry.header, source, { ...state, diverged_at: state.diverged_at });
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
    diverged: [],
  };
}

function mergeReport(into: PushReport, from: PushReport): void {
  into.sessionsAdded += from.sessionsAdded;
  into.sessionsUpdated += from.sessionsUpdated;
  into.sessionsRemoved += from.sessionsRemoved;
  into.eventsPushed += from.eventsPushed;
  into.bytesPushed += from.bytesPushed;
  into.conflicts.push(...from.conflicts);
  into.diverged.push(...from.diverged);
}

/** Pushes one log in its own transaction; a log rewritten in place starts over. */
async function pushLog(context: PushContext, report: PushReport, job: LogJob): Promise<void> {
  const attempt = async (reset: boolean) => {
    const pending = emptyReport();
    await context.db.transaction(
      (client) => pushGroup(context, pending, client, [job], { reset }),
      true,
    );
    mergeReport(report, pending);
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
