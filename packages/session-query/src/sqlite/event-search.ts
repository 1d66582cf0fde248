import { ftsMatch } from "../fts-query";
import {
  type EventPosition,
  eventCursor,
  eventPosition,
  type NormalizedEventQuery,
} from "../normalize-query";
import type { EventHit, Page } from "../query-engine";
import type { ParsedScope } from "../query-schema";
import { type EventRow, ROW_ID } from "./event-lines";
import type { HitCache } from "./hit-cache";
import type { IndexReads, SummaryRow } from "./index-reads";
import { ftsRowId, ftsRowIdSql, KEYS_PER_MS, roleTag, typeTag } from "./schema";
import { EVENT_ROW_COLUMNS, type PageSessionSource, pageHits } from "./search-hits";

const surfaceTypes = ["message", "function_call", "function_call_output", "compaction"];

/** The engine's `searchEvents` over `reads`, its page's hits through `hitCache`. */
export function createEventSearch(
  reads: IndexReads,
  hitCache: HitCache,
): (scope: ParsedScope, query: NormalizedEventQuery) => Page<EventHit> {
  const { prepared, workspacesOf, sessionInScope, typeIds, forkCountSql, summaryOf } = reads;
  const { toolRow, maxEvent } = reads;
  /** Where a page's sessions come from when the hit cache does not hold them. */
  const pageSessionSource = (workspaces: number[] | null): PageSessionSource => ({
    scopeKey: workspaces === null ? "*" : workspaces.join(","),
    // The sessions missing from the cache in one statement, not one query per session.
    load: (missing) =>
      prepared<SummaryRow>(
        `SELECT s.*, ${forkCountSql(workspaces)} FROM sessions s
         WHERE s.id IN (SELECT value FROM json_each(?))`,
      )
        .all(JSON.stringify(missing))
        .map((row) => [row.id, { sessionId: row.session_id, summary: summaryOf(row) }]),
  });

  return (scope: ParsedScope, query: NormalizedEventQuery): Page<EventHit> => {
    const empty = { items: [], nextCursor: null };
    const position = eventPosition(query);
    const relevance = query.order === "relevance";
    const workspaces = workspacesOf(scope);
    if (workspaces !== null && workspaces.length === 0) return empty;
    let sessionRowId: number | null = null;
    if (query.sessionId !== null) {
      const row = sessionInScope(scope, query.sessionId);
      if (row === null) return empty;
      sessionRowId = row.id;
    }
    let toolId: number | null = null;
    if (query.toolName !== null) {
      const row = toolRow.get(query.toolName);
      if (row === undefined) return empty;
      toolId = row.id;
    }
    // Time bounds and the cursor are ranges over the time-keyed event ids.
    let low = query.sinceMs === null ? null : query.sinceMs * KEYS_PER_MS;
    let high = query.untilMs === null ? null : query.untilMs * KEYS_PER_MS;
    let offset = 0;
    let snapshotMs: number | null = null;
    if (position !== null) {
      if ("key" in position) {
        const last = Number(position.key[0]);
        if (query.order === "oldest") low = Math.max(low ?? last + 1, last + 1);
        else high = Math.min(high ?? last, last);
      } else {
        offset = position.offset;
        snapshotMs = position.snapshotMs;
      }
    }
    if (relevance) {
      // The newest event in scope only: a cursor must not carry another workspace's activity.
      snapshotMs ??= Math.floor(
        ((workspaces === null
          ? maxEvent.get()?.id
          : prepared<{ id: number | null }>(
              `SELECT max(e.id) AS id FROM events e JOIN sessions s ON s.id = e.session WHERE s.workspace IN (${workspaces.join(",")})`,
            ).get()?.id) ?? 0) / KEYS_PER_MS,
      );
      const bound = (snapshotMs + 1) * KEYS_PER_MS;
      high = high === null ? bound : Math.min(high, bound);
    }
    const where: string[] = [];
    const params: (string | number)[] = [];
    // With words, the bounds go to FTS5 as ranges of its rowids, the ids negated (`ftsRowId`).
    const { words } = query;
    const fullText = words !== null;
    if (low !== null) {
      where.push(fullText ? "f.rowid <= ?" : "e.id >= ?");
      params.push(fullText ? ftsRowId(low) : low);
    }
    if (high !== null) {
      where.push(fullText ? "f.rowid > ?" : "e.id < ?");
      params.push(fullText ? ftsRowId(high) : high);
    }
    if (query.currentOnly) {
      where.push(`e.replaced IS NULL AND e.type IN (${typeIds(surfaceTypes).join(",")})`);
    }
    if (query.callId !== null) {
      where.push("e.call_id = ?");
      params.push(query.callId);
    }
    const limit = query.limit + 1;
    const filters: RowFilters = { workspaces, sessionRowId, toolId, where, params, limit, offset };
    const rows = fullText
      ? fullTextRows(reads, query, words, filters)
      : plainRows(reads, query, filters);
    if (rows === null) return empty;
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    let next: EventPosition | null = null;
    if (more && last !== undefined) {
      next = relevance
        ? { offset: offset + query.limit, snapshotMs: snapshotMs ?? 0 }
        : { key: [last[ROW_ID]] };
    }
    return {
      items: pageHits(hitCache, page, pageSessionSource(workspaces), query, relevance),
      nextCursor: next === null ? null : eventCursor(query, next),
    };
  };
}

/** What both ways of reading a page of event rows are given. */
interface RowFilters {
  workspaces: number[] | null;
  sessionRowId: number | null;
  toolId: number | null;
  /** Conditions (and their parameters) on `e` and `f` already decided: bounds, currency, call. */
  where: string[];
  params: (string | number)[];
  limit: number;
  offset: number;
}

/** A page of rows through FTS5 (scope, types, roles and tool as its tags); `null`: none can match. */
function fullTextRows(
  reads: IndexReads,
  query: NormalizedEventQuery,
  words: NonNullable<NormalizedEventQuery["words"]>,
  { workspaces, sessionRowId, toolId, where, params, limit, offset }: RowFilters,
): EventRow[] | null {
  const body = ftsMatch(words);
  if (body === null) return null;
  const match = [`body : (${body})`];
  if (workspaces !== null) match.push(`tags : (${workspaces.map((id) => `w${id}`).join(" OR ")})`);
  if (sessionRowId !== null) match.push(`tags : s${sessionRowId}`);
  if (query.types !== null) match.push(`tags : (${query.types.map(typeTag).join(" OR ")})`);
  if (query.roles !== null) match.push(`tags : (${query.roles.map(roleTag).join(" OR ")})`);
  if (toolId !== null) match.push(`tags : n${toolId}`);
  // Ascending rowids are newest first (FTS5's forward order); ties of rank go newest first.
  const order =
    query.order === "relevance"
      ? "f.rank, f.rowid"
      : query.order === "oldest"
        ? "f.rowid DESC"
        : "f.rowid";
  return reads
    .prepared<EventRow>(
      `SELECT ${EVENT_ROW_COLUMNS}${query.order === "relevance" ? ", f.rank" : ""}
       FROM event_fts f JOIN events e ON e.id = ${ftsRowIdSql("f.rowid")}
       WHERE event_fts MATCH ?${where.map((clause) => ` AND ${clause}`).join("")}
       ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
      true,
    )
    .all(match.join(" AND "), ...params);
}

/** A page of rows from the events table in id order; `null`: none can match. */
function plainRows(
  reads: IndexReads,
  query: NormalizedEventQuery,
  { workspaces, sessionRowId, toolId, where, params, limit }: RowFilters,
): EventRow[] | null {
  const join = workspaces === null ? "" : "JOIN sessions s ON s.id = e.session";
  if (workspaces !== null) where.push(`s.workspace IN (${workspaces.join(",")})`);
  if (sessionRowId !== null) {
    where.push("e.session = ?");
    params.push(sessionRowId);
  }
  if (query.types !== null) {
    const ids = reads.typeIds(query.types);
    if (ids.length === 0) return null;
    where.push(`e.type IN (${ids.join(",")})`);
  }
  if (query.roles !== null) {
    where.push(`e.role IN (${query.roles.map(() => "?").join(",")})`);
    params.push(...query.roles);
  }
  if (toolId !== null) {
    where.push("e.tool = ?");
    params.push(toolId);
  }
  return reads
    .prepared<EventRow>(
      `SELECT ${EVENT_ROW_COLUMNS} FROM events e ${join}
       ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY e.id ${query.order === "oldest" ? "" : "DESC"} LIMIT ${limit}`,
      true,
    )
    .all(...params);
}
