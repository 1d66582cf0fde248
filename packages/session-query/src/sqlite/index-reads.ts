/**
 * The read side of the SQLite index that queries share: prepared lookups of workspaces, tools
 * and event types, statements for SQL built at run time, and session rows turned into
 * summaries. `sqlite-engine.ts` (lists, summaries, forks) and `event-search.ts` use it.
 */
import type { SessionHeader } from "@tapedeck/session";
import type Database from "better-sqlite3";
import type { SessionSummary } from "../query-engine";
import type { ParsedScope } from "../query-schema";
import { type SessionAggregate, toSummary } from "../summary";
import { parseStored } from "./stored";
import type { SessionRow } from "./sync-types";

/** A `sessions` row with its fork count in scope. */
export type SummaryRow = SessionRow & { fork_count: number };

/** The index's lookups, bound to one database (see {@link createIndexReads}). */
export interface IndexReads {
  toolRow: Database.Statement<[string], { id: number }>;
  maxEvent: Database.Statement<[], { id: number | null }>;
  typeRow: Database.Statement<[string], { id: number }>;
  sessionById: Database.Statement<[string], SessionRow>;
  lastEventOfType: Database.Statement<[number, number], { offset: number; length: number }>;
  /**
   * A prepared statement for SQL built at run time (cached: preparing costs more than running);
   * with `raw`, its rows are arrays. A SQL text is only ever used in one of the two modes.
   */
  prepared<Row>(sql: string, raw?: boolean): Database.Statement<(string | number)[], Row>;
  /** Row ids of the known event types among `names`. */
  typeIds(names: readonly string[]): number[];
  /** Workspace row ids the scope allows, or `null` for all. */
  workspacesOf(scope: ParsedScope): number[] | null;
  /** The `fork_count` column of a `sessions s` query, counting forks in `workspaces`. */
  forkCountSql(workspaces: number[] | null): string;
  /** The summary of a session row. */
  summaryOf(row: SummaryRow): SessionSummary;
  /** The row of a session in scope, or null. */
  sessionInScope(scope: ParsedScope, sessionId: string): SummaryRow | null;
}

/** The read-side lookups over `db`. */
export function createIndexReads(db: Database.Database): IndexReads {
  const workspaceRow = db.prepare<[string], { id: number }>(
    "SELECT id FROM workspaces WHERE name = ?",
  );
  const toolRow = db.prepare<[string], { id: number }>("SELECT id FROM tools WHERE name = ?");
  const maxEvent = db.prepare<[], { id: number | null }>("SELECT max(id) AS id FROM events");
  const typeRow = db.prepare<[string], { id: number }>("SELECT id FROM event_types WHERE name = ?");
  const sessionById = db.prepare<[string], SessionRow>(
    "SELECT * FROM sessions WHERE session_id = ?",
  );
  const lastEventOfType = db.prepare<[number, number], { offset: number; length: number }>(
    "SELECT offset, length FROM events WHERE session = ? AND type = ? ORDER BY seq DESC LIMIT 1",
  );
  const statements = new Map<string, Database.Statement>();
  /**
   * A prepared statement for SQL built at run time (cached: preparing costs more than running);
   * with `raw`, its rows are arrays. A SQL text is only ever used in one of the two modes.
   */
  const prepared = <Row>(
    sql: string,
    raw = false,
  ): Database.Statement<(string | number)[], Row> => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      if (statements.size > 500) statements.clear();
      statement = db.prepare(sql);
      if (raw) statement.raw(true);
      statements.set(sql, statement);
    }
    return statement as Database.Statement<(string | number)[], Row>;
  };
  /** Row ids of the known event types among `names`. */
  const typeIds = (names: readonly string[]): number[] =>
    names.flatMap((name) => {
      const row = typeRow.get(name);
      return row === undefined ? [] : [row.id];
    });

  /** Workspace row ids the scope allows, or `null` for all. */
  const workspacesOf = (scope: ParsedScope): number[] | null => {
    if ("all" in scope) return null;
    const ids: number[] = [];
    for (const name of scope.workspaceIds) {
      const row = workspaceRow.get(name);
      if (row !== undefined) ids.push(row.id);
    }
    return ids;
  };

  const forkCountSql = (workspaces: number[] | null) =>
    `(SELECT count(*) FROM sessions c WHERE c.parent_id = s.session_id${
      workspaces === null ? "" : ` AND c.workspace IN (${workspaces.join(",")})`
    }) AS fork_count`;

  const summaryOf = (row: SummaryRow): SessionSummary => {
    const header = parseStored<SessionHeader>(row.header);
    const aggregate = parseStored<SessionAggregate>(row.aggregate);
    const damage =
      row.damage_code === null
        ? null
        : { code: row.damage_code, message: row.damage_message ?? "" };
    return toSummary(header, aggregate, row.fork_count, damage);
  };

  /** The row of a session in scope, or null. */
  const sessionInScope = (scope: ParsedScope, sessionId: string): SummaryRow | null => {
    const workspaces = workspacesOf(scope);
    if (workspaces !== null && workspaces.length === 0) return null;
    const row = prepared<SummaryRow>(
      `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s WHERE s.session_id = ?${
        workspaces === null ? "" : ` AND s.workspace IN (${workspaces.join(",")})`
      }`,
    ).get(sessionId);
    return row ?? null;
  };

  return {
    toolRow,
    maxEvent,
    typeRow,
    sessionById,
    lastEventOfType,
    prepared,
    typeIds,
    workspacesOf,
    forkCountSql,
    summaryOf,
    sessionInScope,
  };
}
