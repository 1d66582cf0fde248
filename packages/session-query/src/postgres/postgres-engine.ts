/**
 * The PostgreSQL backend: the team index. Unlike the SQLite index it holds the events themselves
 * (their JSON and a tsvector of their text), so every operation works from the database alone —
 * a session pushed from another machine is listed, searched, read, traced and exported here
 * without its file. `readSession` replays the rows through `Session` invariants exactly as a file
 * would be replayed. Logs get in with {@link PostgresQueryEngine.push}.
 */
import {
  EventLogCorruptError,
  parseEventLine,
  parseHeaderLine,
  replayEvents,
  type Session,
  type SessionEvent,
  SessionNotFoundError,
} from "@tapedeck/session";
import {
  type EventPosition,
  eventCursor,
  eventPosition,
  type NormalizedEventQuery,
  type NormalizedSessionQuery,
  sessionPage,
  sessionPosition,
} from "../normalize-query";
import { queryEngine } from "../query-backend";
import type { EventHit, Page, SessionQueryEngine, SessionSummary } from "../query-engine";
import type { ParsedScope } from "../query-schema";
import { snippet } from "../snippet";
import { type SessionAggregate, toSummary } from "../summary";
import { eventText } from "../text";
import { type Connection, openConnection, type PostgresConnectionOptions } from "./connection";
import { describeDriverError } from "./errors";
import { migrate } from "./migrations";
import { pushStore } from "./push";
import type { HostStats, PushOptions, PushReport, PushStore } from "./push-types";
import { toTsquery } from "./text-search";

/** Options of {@link createPostgresQueryEngine}: `{ url }` or `{ pool }`. */
export type PostgresQueryEngineOptions = PostgresConnectionOptions;

/** The PostgreSQL engine: a {@link SessionQueryEngine} plus push, stats and close. */
export interface PostgresQueryEngine extends SessionQueryEngine {
  /**
   * Pushes a home's logs: for each log only the events not pushed before (per machine and home,
   * resumable: progress is committed with the events), each session in its own transaction, events
   * in multi-row batches. Several machines may push at once; each event is stored once. A log
   * gone from the home (moved to the trash) leaves the index when this home had pushed it.
   */
  push(store: PushStore, options?: PushOptions): Promise<PushReport>;
  /** Sessions, events and bytes of event JSON per pushing host, largest first. */
  stats(): Promise<HostStats[]>;
  /**
   * Ids of every session in the index starting with `prefix` (all without one), sorted: what a
   * short id or a typed prefix is resolved against when logs live on other machines.
   */
  sessionIds(prefix?: string): Promise<string[]>;
  /** Sessions per workspace in the index (every machine's), sorted by workspace id. */
  workspaces(): Promise<WorkspaceCount[]>;
  /** Ends the pool when the engine created it. */
  close(): Promise<void>;
}

/** A workspace and how many sessions of it the index holds. */
export interface WorkspaceCount {
  id: string;
  sessions: number;
}

interface SessionRow {
  session_id: string;
  header: string;
  aggregate: SessionAggregate;
  damage_code: string | null;
  damage_message: string | null;
  fork_count: number;
}

interface EventRow {
  session_id: string;
  seq: number;
  ts_ms: string;
  line: string;
  rank?: number;
}

const surfaceTypes = ["message", "function_call", "function_call_output", "compaction"];
const sessionColumns =
  "s.session_id, s.header, s.aggregate, s.damage_code, s.damage_message, s.created_at, s.updated_at";

/** Collects query parameters; `add` returns the placeholder. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Connects, applies pending migrations and returns the engine.
 * @throws IndexConnectionError when the server cannot be reached or refuses the credentials.
 * @throws IndexSchemaError when the database's schema is newer than this code.
 */
export async function createPostgresQueryEngine(
  options: PostgresQueryEngineOptions,
): Promise<PostgresQueryEngine> {
  const connection = openConnection(options);
  try {
    const client = await connection.connect();
    try {
      await migrate(client, connection.where);
    } finally {
      client.release();
    }
  } catch (error) {
    if (connection.owned) await connection.pool.end().catch(() => undefined);
    throw describeDriverError(error, connection.where);
  }
  return postgresEngine(connection);
}

function postgresEngine(db: Connection): PostgresQueryEngine {
  const engine: PostgresQueryEngine = {
    ...queryEngine({
      listSessions: (scope, query) => listSessions(db, scope, query),
      searchEvents: (scope, query) => searchEvents(db, scope, query),
      async readSession(scope, id) {
        const row = await sessionInScope(db, scope, id);
        if (row === null) throw new SessionNotFoundError(id);
        try {
          return await replay(db, row);
        } catch (error) {
          if (EventLogCorruptError.isInstance(error) && row.damage_code === null) {
            await db.query(
              `UPDATE tapedeck_sessions SET damage_code = $2, damage_message = $3, status = 'damaged'
               WHERE session_id = $1 AND damage_code IS NULL`,
              [id, error.code, error.message],
            );
          }
          throw error;
        }
      },
      async summary(scope, id) {
        const row = await sessionInScope(db, scope, id);
        return row === null ? null : summaryOf(row);
      },
      async forks(scope, id) {
        const workspaces = workspacesOf(scope);
        const params = new Params();
        const forks = forkCountSql(params, workspaces);
        const where = [`s.parent_id = ${params.add(id)}`];
        if (workspaces !== null) where.push(`s.workspace_id = ANY(${params.add(workspaces)})`);
        const { rows } = await db.query<SessionRow>(
          `SELECT ${sessionColumns}, ${forks} FROM tapedeck_sessions s WHERE ${where.join(" AND ")}`,
          params.values,
        );
        return rows.map(summaryOf);
      },
      async spawned(scope, id) {
        const workspaces = workspacesOf(scope);
        const params = new Params();
        const forks = forkCountSql(params, workspaces);
        // The header as pushed (its line 1): a text match narrows, the parsed header decides
        // (no cast to jsonb, which refuses some texts JSON allows).
        const where = [
          `strpos(s.header, '"spawnedBy"') > 0`,
          `strpos(s.header, ${params.add(id)}) > 0`,
        ];
        if (workspaces !== null) where.push(`s.workspace_id = ANY(${params.add(workspaces)})`);
        const { rows } = await db.query<SessionRow>(
          `SELECT ${sessionColumns}, ${forks} FROM tapedeck_sessions s WHERE ${where.join(" AND ")}`,
          params.values,
        );
        return rows.map(summaryOf).filter((summary) => summary.spawnedBy?.sessionId === id);
      },
    }),

    push: (store, pushOptions = {}) => pushStore(db, store, pushOptions),

    async stats() {
      const { rows } = await db.query<{
        host: string;
        sessions: string;
        events: string;
        bytes: string;
      }>(
        `SELECT host, count(*) AS sessions,
           coalesce(sum((aggregate->>'eventCount')::bigint), 0) AS events,
           coalesce(sum(bytes), 0) AS bytes
         FROM tapedeck_sessions GROUP BY host ORDER BY sum(bytes) DESC, host`,
      );
      return rows.map((row) => ({
        host: row.host,
        sessions: Number(row.sessions),
        events: Number(row.events),
        bytes: Number(row.bytes),
      }));
    },

    async sessionIds(prefix = "") {
      const { rows } = await db.query<{ id: string }>(
        `SELECT session_id::text AS id FROM tapedeck_sessions
         WHERE session_id::text LIKE $1 || '%' ORDER BY session_id`,
        [prefix.toLowerCase().replace(/[^0-9a-f-]/g, "")],
      );
      return rows.map((row) => row.id);
    },

    async workspaces() {
      const { rows } = await db.query<{ id: string; sessions: number }>(
        `SELECT workspace_id AS id, count(*)::int AS sessions FROM tapedeck_sessions
         GROUP BY workspace_id ORDER BY workspace_id COLLATE "C"`,
      );
      return rows;
    },

    async close() {
      if (db.owned) await db.pool.end();
    },
  };
  return engine;
}

/** The workspace filter of a scope, or null for all. */
function workspacesOf(scope: ParsedScope): string[] | null {
  return "all" in scope ? null : [...scope.workspaceIds];
}

function forkCountSql(params: Params, workspaces: string[] | null): string {
  return `(SELECT count(*)::int FROM tapedeck_sessions c WHERE c.parent_id = s.session_id${
    workspaces === null ? "" : ` AND c.workspace_id = ANY(${params.add(workspaces)})`
  }) AS fork_count`;
}

function summaryOf(row: SessionRow): SessionSummary {
  return toSummary(
    parseHeaderLine(row.header),
    row.aggregate,
    row.fork_count,
    row.damage_code === null ? null : { code: row.damage_code, message: row.damage_message ?? "" },
  );
}

/** Rows of sessions in scope with these ids. */
async function sessionRows(
  db: Connection,
  scope: ParsedScope,
  ids: string[],
): Promise<SessionRow[]> {
  if (ids.length === 0) return [];
  const params = new Params();
  const workspaces = workspacesOf(scope);
  const forks = forkCountSql(params, workspaces);
  const where = [`s.session_id = ANY(${params.add(ids)}::uuid[])`];
  if (workspaces !== null) where.push(`s.workspace_id = ANY(${params.add(workspaces)})`);
  const { rows } = await db.query<SessionRow>(
    `SELECT ${sessionColumns}, ${forks} FROM tapedeck_sessions s WHERE ${where.join(" AND ")}`,
    params.values,
  );
  return rows;
}

async function sessionInScope(
  db: Connection,
  scope: ParsedScope,
  id: string,
): Promise<SessionRow | null> {
  return (await sessionRows(db, scope, [id]))[0] ?? null;
}

async function listSessions(
  db: Connection,
  scope: ParsedScope,
  query: NormalizedSessionQuery,
): Promise<Page<SessionSummary>> {
  const after = sessionPosition(query);
  const workspaces = workspacesOf(scope);
  const field = query.orderBy === "createdAt" ? "created_at" : "updated_at";
  const params = new Params();
  const forks = forkCountSql(params, workspaces);
  const where: string[] = [];
  if (workspaces !== null) where.push(`s.workspace_id = ANY(${params.add(workspaces)})`);
  if (query.status !== null) where.push(`s.status = ${params.add(query.status)}`);
  if (query.sinceMs !== null) {
    where.push(`s.updated_at >= ${params.add(new Date(query.sinceMs).toISOString())}`);
  }
  if (query.untilMs !== null) {
    where.push(`s.updated_at < ${params.add(new Date(query.untilMs).toISOString())}`);
  }
  if (query.words !== null) {
    const tsquery = toTsquery(query.words);
    if (tsquery === null) return { items: [], nextCursor: null };
    where.push(`s.search @@ ${params.add(tsquery)}::tsquery`);
  }
  if (after !== null) {
    where.push(
      `(s.${field}, s.session_id) < (${params.add(after[0])}, ${params.add(after[1])}::uuid)`,
    );
  }
  const { rows } = await db.query<SessionRow & { created_at: string; updated_at: string }>(
    `SELECT ${sessionColumns}, ${forks} FROM tapedeck_sessions s
     ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY s.${field} DESC, s.session_id DESC LIMIT ${query.limit + 1}`,
    params.values,
  );
  return sessionPage(query, rows, summaryOf);
}

/** A page of events in scope matching the query (words, filters, order, cursor). */
async function searchEvents(
  db: Connection,
  scope: ParsedScope,
  query: NormalizedEventQuery,
): Promise<Page<EventHit>> {
  const empty = { items: [], nextCursor: null };
  const position = eventPosition(query);
  const relevance = query.order === "relevance";
  const workspaces = workspacesOf(scope);
  const params = new Params();
  const where: string[] = [];
  let tsquery: string | null = null;
  if (query.words !== null) {
    tsquery = toTsquery(query.words);
    if (tsquery === null) return empty;
    where.push(`e.body @@ ${params.add(tsquery)}::tsquery`);
  }
  if (workspaces !== null) where.push(`e.workspace_id = ANY(${params.add(workspaces)})`);
  if (query.sessionId !== null) where.push(`e.session_id = ${params.add(query.sessionId)}`);
  if (query.types !== null) where.push(`e.type = ANY(${params.add(query.types)})`);
  if (query.roles !== null) where.push(`e.role = ANY(${params.add(query.roles)})`);
  if (query.toolName !== null) where.push(`e.tool = ${params.add(query.toolName)}`);
  if (query.callId !== null) where.push(`e.call_id = ${params.add(query.callId)}`);
  if (query.sinceMs !== null) where.push(`e.ts_ms >= ${params.add(query.sinceMs)}`);
  if (query.untilMs !== null) where.push(`e.ts_ms < ${params.add(query.untilMs)}`);
  if (query.currentOnly) {
    where.push(`e.replaced_by IS NULL AND e.type = ANY(${params.add(surfaceTypes)})`);
  }
  let offset = 0;
  let snapshotMs: number | null = null;
  if (position !== null) {
    if ("key" in position) {
      const [ms, seq, id] = position.key;
      const operator = query.order === "oldest" ? ">" : "<";
      where.push(
        `(e.ts_ms, e.seq, e.session_id) ${operator} (${params.add(ms)}, ${params.add(seq)}, ${params.add(id)}::uuid)`,
      );
    } else {
      offset = position.offset;
      snapshotMs = position.snapshotMs;
    }
  }
  if (relevance) {
    if (snapshotMs === null) {
      // The newest event in scope only: a cursor must not carry another workspace's activity.
      const { rows } = await db.query<{ ms: string | null }>(
        workspaces === null
          ? "SELECT max(ts_ms) AS ms FROM tapedeck_events"
          : "SELECT max(ts_ms) AS ms FROM tapedeck_events WHERE workspace_id = ANY($1)",
        workspaces === null ? [] : [workspaces],
      );
      snapshotMs = Number(rows[0]?.ms ?? 0);
    }
    where.push(`e.ts_ms <= ${params.add(snapshotMs)}`);
  }
  const direction = query.order === "oldest" ? "" : " DESC";
  const order = `e.ts_ms${direction}, e.seq${direction}, e.session_id${direction}`;
  const rank = relevance ? `, ts_rank(e.body, ${params.add(tsquery)}::tsquery, 1) AS rank` : "";
  const { rows } = await db.query<EventRow>(
    `SELECT e.session_id, e.seq, e.ts_ms, e.line${rank} FROM tapedeck_events e
     ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY ${relevance ? `rank DESC, ${order}` : order}
     LIMIT ${query.limit + 1}${offset > 0 ? ` OFFSET ${offset}` : ""}`,
    params.values,
  );
  const page = rows.slice(0, query.limit);
  const summaries = new Map<string, SessionSummary>();
  for (const row of await sessionRows(db, scope, [...new Set(page.map((r) => r.session_id))])) {
    summaries.set(row.session_id, summaryOf(row));
  }
  const items: EventHit[] = [];
  for (const row of page) {
    const summary = summaries.get(row.session_id);
    if (summary === undefined) continue;
    const event = parseEventLine(row.line);
    const hit: EventHit = {
      sessionId: row.session_id,
      event,
      session: structuredClone(summary),
      snippet: snippet(eventText(event), query.words ?? [], query.markers),
    };
    if (relevance && row.rank !== undefined) hit.score = row.rank;
    items.push(hit);
  }
  const last = page[page.length - 1];
  let next: EventPosition | null = null;
  if (rows.length > query.limit && last !== undefined) {
    next = relevance
      ? { offset: offset + query.limit, snapshotMs: snapshotMs ?? 0 }
      : { key: [Number(last.ts_ms), last.seq, last.session_id] };
  }
  return { items, nextCursor: next === null ? null : eventCursor(query, next) };
}

/** The events of a session's own rows, in seq order. */
async function ownEvents(db: Connection, sessionId: string): Promise<SessionEvent[]> {
  const { rows } = await db.query<{ line: string; seq: number }>(
    "SELECT seq, line FROM tapedeck_events WHERE session_id = $1 ORDER BY seq",
    [sessionId],
  );
  return rows.map((row) => parseEventLine(row.line, { line: row.seq }));
}

/** Replays a session from its rows (and its ancestors'), as a file would be replayed. */
async function replay(db: Connection, row: SessionRow, depth = 0): Promise<Session> {
  const header = parseHeaderLine(row.header);
  let parentEvents: SessionEvent[] | undefined;
  if (header.parent !== undefined && depth < 1000) {
    const parent = await db.query<SessionRow>(
      `SELECT ${sessionColumns}, 0 AS fork_count FROM tapedeck_sessions s WHERE s.session_id = $1`,
      [header.parent.sessionId],
    );
    const parentRow = parent.rows[0];
    if (parentRow !== undefined)
      parentEvents = [...(await replay(db, parentRow, depth + 1)).events];
  }
  const session = replayEvents(
    header,
    await ownEvents(db, row.session_id),
    parentEvents === undefined ? {} : { parentEvents },
  );
  if (row.damage_code !== null) {
    // Damage the push saw in the file (a torn tail, lines out of order) that the stored rows,
    // kept in seq order, no longer show: the log is still not readable.
    throw new EventLogCorruptError(
      row.damage_code as EventLogCorruptError["code"],
      row.damage_message ?? "",
      { sessionId: row.session_id },
    );
  }
  return session;
}
