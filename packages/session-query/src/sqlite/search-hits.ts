/**
 * A search's page of hits from its index rows: the events read back from their logs by byte
 * offset (`event-lines.ts`), each with its session's summary and a snippet; rows gone stale are
 * dropped. Log files and session summaries are kept between searches while the index is
 * unchanged (`hit-cache.ts`).
 *
 * Written for a search that runs after other work pushed its code and data out of the CPU's
 * caches (a viewer or MCP server between two questions; the issue #12 engine row runs each
 * search between two `rg` processes): one pass over the rows, no object per row, no closure per
 * hit.
 */
import type { SessionEvent } from "@tapedeck/session";
import { EventLogCorruptError } from "@tapedeck/session/core";
import type { NormalizedEventQuery } from "../normalize-query";
import type { EventHit } from "../query-engine";
import { snippet } from "../snippet";
import { eventText } from "../text";
import {
  type EventRow,
  ROW_GENERATION,
  ROW_RANK,
  ROW_SEQ,
  ROW_SESSION,
  readEventLines,
} from "./event-lines";
import { type HitCache, INDEX_VERSION_COLUMNS, type PageSession } from "./hit-cache";
import { parseIndexedEvent } from "./stored";

/** The columns of an {@link EventRow}, for a statement over `events e` (selected as arrays). */
export const EVENT_ROW_COLUMNS = `e.id, e.session, e.seq, e.offset, e.length, ${INDEX_VERSION_COLUMNS}`;

/** Where a page's sessions come from when the cache does not hold them. */
export interface PageSessionSource {
  /** Identifies the scope's summaries (fork counts depend on the scope's workspaces). */
  scopeKey: string;
  /** The sessions of these row ids, in one statement. */
  load(missing: number[]): Iterable<[number, PageSession]>;
}

/** The hits of a page of rows, in the rows' order; rows whose line is gone or changed are left out. */
export function pageHits(
  hitCache: HitCache,
  rows: readonly EventRow[],
  source: PageSessionSource,
  query: NormalizedEventQuery,
  relevance: boolean,
): EventHit[] {
  const first = rows[0];
  if (first === undefined) return [];
  hitCache.refresh(first[ROW_GENERATION]);
  const ids: number[] = [];
  for (let index = 0; index < rows.length; index += 1) {
    const session = rows[index]![ROW_SESSION];
    if (!ids.includes(session)) ids.push(session);
  }
  const sessions = hitCache.pageSessions(source.scopeKey, ids, source.load);
  const lines = readEventLines(
    (sessionId) => hitCache.reader(sessionId),
    rows,
    (id) => sessions.get(id)?.sessionId,
  );
  const words = query.words ?? [];
  const hits: EventHit[] = [];
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index]!;
    const session = sessions.get(row[ROW_SESSION]);
    const line = lines[index];
    if (session === undefined || line === null || line === undefined) continue;
    const parsed = parseIndexedEvent(line, row[ROW_SEQ]);
    if (parsed === null) continue;
    const event = withPayload(hitCache, session.sessionId, parsed);
    const hit: EventHit = {
      sessionId: session.sessionId,
      event,
      session: hitCache.summaryOf(session),
      snippet: snippet(eventText(event), words, query.markers),
    };
    const rank = row[ROW_RANK];
    if (relevance && rank !== undefined) hit.score = -rank;
    hits.push(hit);
  }
  return hits;
}

/**
 * `event` with a payload its line keeps in a blob read back (the index matched the whole text,
 * and the other engines hold it whole); the line's preview when the blob is missing or damaged
 * (a reader of the session gets the precise error; a search shows what it has). Any other error
 * (a reader without a blob store: `BLOB_NOT_LOADED`) goes to the caller.
 */
function withPayload(hitCache: HitCache, sessionId: string, event: SessionEvent): SessionEvent {
  const reader = hitCache.reader(sessionId);
  if (reader === null) return event;
  try {
    return reader.withPayload(event);
  } catch (error) {
    if (EventLogCorruptError.isInstance(error)) return event;
    throw error;
  }
}
