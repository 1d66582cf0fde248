/**
 * The writers of a push transaction: statements sent without waiting for their answers (checked
 * before the commit), the event rows of a group of logs in multi-row batches, and every session's
 * new totals and this home's progress as one statement.
 */
import type { SessionEvent } from "@tapedeck/session";
import type pg from "pg";
import { eventText } from "../text";
import { toTsvector } from "./text-search";

/** Statements sent without waiting for their answers; every answer is checked by `drain`. */
export class Pipeline {
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

  /** Runs a statement whose answer is needed now (after every statement sent is answered). */
  async query<Row extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<Row>> {
    await this.drain();
    return this.client.query<Row>(sql, params);
  }
}

/** Events of a group of logs waiting to be inserted. */
export class EventBatch {
  sessions: string[] = [];
  workspaces: string[] = [];
  seqs: number[] = [];
  times: number[] = [];
  types: string[] = [];
  roles: (string | null)[] = [];
  tools: (string | null)[] = [];
  callIds: (string | null)[] = [];
  lines: string[] = [];
  /** tsvector literals, `""` for an event without text. */
  bodies: string[] = [];

  get size(): number {
    return this.seqs.length;
  }

  /** Sends the batch (if any) and starts a new one. */
  flush(pipeline: Pipeline): void {
    if (this.size === 0) return;
    pipeline.send(
      `INSERT INTO tapedeck_events
         (session_id, workspace_id, seq, ts_ms, type, role, tool, call_id, line, body)
       SELECT session_id, workspace_id, seq, ts_ms, type, role, tool, call_id, line,
         nullif(body, '')::tsvector
       FROM unnest($1::uuid[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[],
         $7::text[], $8::text[], string_to_array($9, E'\\n'), string_to_array($10, E'\\n'))
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
        // One text each, a line per row: event JSON and tsvector literals hold no newline, and
        // splitting costs both sides far less than escaping every element of a text[].
        this.lines.join("\n"),
        this.bodies.join("\n"),
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
    this.bodies.push(toTsvector(eventText(event)) ?? "");
  }
}

/** Each session's new totals and this home's progress in its file, sent as one statement. */
export class Progress {
  /** The session rows updated. */
  ids: string[] = [];
  /** The logs' ids in this home (the progress key; another id for a divergence fork). */
  localIds: string[] = [];
  divergedAt: (number | null)[] = [];
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
  invariants: (string | null)[] = [];

  send(pipeline: Pipeline, source: string): void {
    if (this.ids.length === 0) return;
    pipeline.send(
      `WITH f AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
           $6::text[], $7::bigint[], $8::text[], $9::boolean[], $10::text[], $11::bigint[],
           $12::int[], $13::bigint[], $14::numeric[], $15::float8[], $16::int[], $17::uuid[],
           $18::int[], $20::text[])
           AS f(session_id, updated_at, status, aggregate, damage_code, damage_message, bytes,
             search, set_search, header, file_offset, file_line, file_size, file_ino, file_mtime,
             last_seq, local_id, diverged_at, invariants)
       ), updated AS (
         UPDATE tapedeck_sessions s SET updated_at = f.updated_at, status = f.status,
           aggregate = f.aggregate::jsonb, damage_code = f.damage_code,
           damage_message = f.damage_message, bytes = s.bytes + f.bytes, pushed_at = now(),
           search = CASE WHEN f.set_search THEN f.search::tsvector ELSE s.search END
         FROM f WHERE s.session_id = f.session_id
       )
       INSERT INTO tapedeck_push_state (source, session_id, header, file_offset, file_line,
         file_size, file_ino, file_mtime, last_seq, diverged_at, invariants)
       SELECT $19, local_id, header, file_offset, file_line, file_size, file_ino, file_mtime,
         last_seq, diverged_at, invariants FROM f
       ON CONFLICT (source, session_id) DO UPDATE SET header = EXCLUDED.header,
         file_offset = EXCLUDED.file_offset, file_line = EXCLUDED.file_line,
         file_size = EXCLUDED.file_size, file_ino = EXCLUDED.file_ino,
         file_mtime = EXCLUDED.file_mtime, last_seq = EXCLUDED.last_seq,
         diverged_at = EXCLUDED.diverged_at, invariants = EXCLUDED.invariants`,
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
        this.localIds,
        this.divergedAt,
        source,
        this.invariants,
      ],
    );
  }
}
