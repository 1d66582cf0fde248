/**
 * Validated, normalized forms of the queries, shared by the backends so that both apply the same
 * defaults and tie cursors to the same query digest.
 */
import type { SessionEventType } from "@tapedeck/session";
import { lazySchema } from "@tapedeck/session/core";
import * as z from "zod/mini";
import { decodeCursor, encodeCursor, queryDigest, textDigest } from "./cursor";
import { InvalidQueryError } from "./errors";
import type {
  EventOrder,
  HighlightMarkers,
  Page,
  PrefixMatching,
  SessionOrder,
  SessionStatus,
  SessionSummary,
} from "./query-engine";
import { fastEventQuery } from "./query-fast-path";
import {
  DEFAULT_LIMIT,
  eventSearchQuerySchema,
  listSessionsOptionsSchema,
  parseInput,
  sessionSearchQuerySchema,
  timeMs,
} from "./query-schema";
import { defaultMarkers } from "./snippet";
import { type QueryWord, queryWords } from "./text";
import { useEnglishMessages } from "./zod-english";

/** An event query after validation and defaults. */
export interface NormalizedEventQuery {
  /** `null` without text; `[]` when the text holds nothing searchable (nothing matches). */
  words: QueryWord[] | null;
  text: string | null;
  /** How the last word matches (`none` without text). */
  prefix: PrefixMatching;
  sessionId: string | null;
  types: SessionEventType[] | null;
  roles: string[] | null;
  toolName: string | null;
  callId: string | null;
  /** Inclusive, ms. */
  sinceMs: number | null;
  /** Exclusive, ms. */
  untilMs: number | null;
  currentOnly: boolean;
  order: EventOrder;
  limit: number;
  cursor: string | null;
  markers: HighlightMarkers;
  digest: string;
}

/**
 * Validates an event query (the common shapes without zod: `query-fast-path.ts`).
 * @throws InvalidQueryError
 */
export function normalizeEventQuery(query: unknown): NormalizedEventQuery {
  const input = query ?? {};
  const parsed = fastEventQuery(input) ?? parseInput(eventSearchQuerySchema(), input, "query");
  const text = parsed.text?.trim() ? parsed.text : null;
  const order: EventOrder =
    parsed.order === "relevance" && text === null ? "newest" : (parsed.order ?? "newest");
  const prefix = text === null ? "none" : (parsed.prefix ?? "none");
  const sessionId = parsed.sessionId ?? null;
  const types =
    parsed.types === undefined ? null : ([...new Set(parsed.types)] as SessionEventType[]);
  const roles = parsed.roles === undefined ? null : [...new Set(parsed.roles)];
  const toolName = parsed.toolName ?? null;
  const callId = parsed.callId ?? null;
  const sinceMs = parsed.since === undefined ? null : timeMs(parsed.since);
  const untilMs = parsed.until === undefined ? null : timeMs(parsed.until);
  const currentOnly = parsed.currentOnly ?? false;
  // What ties a cursor to its query, keys in sorted order: its JSON is then the text
  // `queryDigest` hashes (`stableJson`), written in one native call (tested in normalize-query.test.ts).
  // `prefix` joins only when set (`undefined` is left out), so plain queries keep their digest.
  const identity = {
    callId,
    currentOnly,
    order,
    prefix: prefix === "none" ? undefined : prefix,
    roles,
    sessionId,
    sinceMs,
    text,
    toolName,
    types,
    untilMs,
  };
  const words = text === null ? null : queryWords(text, prefix);
  const digest = textDigest(JSON.stringify(identity));
  return {
    words,
    text,
    prefix,
    sessionId,
    types,
    roles,
    toolName,
    callId,
    sinceMs,
    untilMs,
    currentOnly,
    order,
    limit: parsed.limit ?? DEFAULT_LIMIT,
    cursor: parsed.cursor ?? null,
    markers: parsed.highlight ?? defaultMarkers,
    digest,
  };
}

/** A session list or search after validation and defaults. */
export interface NormalizedSessionQuery {
  words: QueryWord[] | null;
  text: string | null;
  prefix: PrefixMatching;
  orderBy: SessionOrder;
  status: SessionStatus | null;
  sinceMs: number | null;
  untilMs: number | null;
  limit: number;
  cursor: string | null;
  digest: string;
}

/** Validates `listSessions` options (`search` false) or a `searchSessions` query. */
export function normalizeSessionQuery(query: unknown, search: boolean): NormalizedSessionQuery {
  const parsed = search
    ? parseInput(sessionSearchQuerySchema(), query ?? {}, "query")
    : { ...parseInput(listSessionsOptionsSchema(), query ?? {}, "options") };
  const rawText = "text" in parsed ? parsed.text : undefined;
  const text = rawText?.trim() ? rawText : null;
  const since = "since" in parsed ? parsed.since : undefined;
  const until = "until" in parsed ? parsed.until : undefined;
  const prefix =
    text === null ? "none" : (("prefix" in parsed ? parsed.prefix : undefined) ?? "none");
  const normalized: Omit<NormalizedSessionQuery, "digest"> = {
    words: text === null ? null : queryWords(text, prefix),
    text,
    prefix,
    orderBy: parsed.orderBy ?? "updatedAt",
    status: parsed.status ?? null,
    sinceMs: since === undefined ? null : timeMs(since),
    untilMs: until === undefined ? null : timeMs(until),
    limit: parsed.limit ?? DEFAULT_LIMIT,
    cursor: parsed.cursor ?? null,
  };
  const {
    limit: _limit,
    cursor: _cursor,
    words: _words,
    prefix: _prefix,
    ...identity
  } = normalized;
  return {
    ...normalized,
    digest: queryDigest(
      prefix === "none" ? { search, ...identity } : { search, ...identity, prefix },
    ),
  };
}

/** Position after the last session of a page: its ordering time and id. */
export const sessionPositionSchema = lazySchema(() => {
  useEnglishMessages();
  return z.tuple([z.string(), z.string()]);
});
/** The decoded session cursor, or `null` on the first page. */
export function sessionPosition(query: NormalizedSessionQuery): [string, string] | null {
  if (query.cursor === null) return null;
  return decodeCursor(query.cursor, "sessions", query.digest, sessionPositionSchema());
}
/** A session cursor after `time`/`id`. */
export function sessionCursor(query: NormalizedSessionQuery, time: string, id: string): string {
  return encodeCursor("sessions", query.digest, [time, id]);
}

/**
 * A page of a session listing from the rows a backend read (each made a summary by `summaryOf`): `query.limit + 1` at most, in page
 * order; the one past the limit is not shown and only says that a next page exists, whose cursor
 * is the last shown session's time (created or updated, as the query orders) and id.
 */
export function sessionPage<Row>(
  query: NormalizedSessionQuery,
  rows: readonly Row[],
  summaryOf: (row: Row) => SessionSummary,
): Page<SessionSummary> {
  const items = rows.slice(0, query.limit).map(summaryOf);
  const last = items[items.length - 1];
  const time = query.orderBy === "createdAt" ? last?.createdAt : last?.updatedAt;
  return {
    items,
    nextCursor:
      rows.length > query.limit && last !== undefined && time !== undefined
        ? sessionCursor(query, time, last.id)
        : null,
  };
}

/**
 * Position in an event listing. Newest/oldest: the last item's order key. Relevance: how many
 * items were returned so far, and the newest ts (ms) the first page could see.
 */
export const eventPositionSchema = lazySchema(() => {
  useEnglishMessages();
  return z.union([
    z.strictObject({
      key: z.array(z.union([z.number(), z.string()])).check(z.minLength(1), z.maxLength(4)),
    }),
    z.strictObject({ offset: z.number().check(z.int(), z.minimum(0)), snapshotMs: z.number() }),
  ]);
});
/** A decoded event position. */
export type EventPosition = z.output<ReturnType<typeof eventPositionSchema>>;

/**
 * The decoded event cursor, or `null` on the first page: an offset for a relevance query, the
 * last key for the others.
 * @throws InvalidQueryError for a cursor of another query or ordering
 */
export function eventPosition(query: NormalizedEventQuery): EventPosition | null {
  if (query.cursor === null) return null;
  const position = decodeCursor(query.cursor, "events", query.digest, eventPositionSchema());
  if ("key" in position === (query.order === "relevance")) {
    throw new InvalidQueryError("cursor", "this cursor belongs to a different ordering");
  }
  return position;
}
/** An event cursor. */
export function eventCursor(query: NormalizedEventQuery, position: EventPosition): string {
  return encodeCursor("events", query.digest, position);
}
