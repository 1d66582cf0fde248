/**
 * The common, well-formed scopes and event queries checked without running zod: a plain object
 * with only the usual keys, each of the right type and within the schema's limits. The result is
 * exactly what the zod schema returns for the same input (a property test compares the two over
 * generated inputs, `query-fast-path.test.ts`); anything else (another key, a wrong type, a
 * class instance, a value out of range) is declined and goes to the schema, which stays the one
 * definition and the one place that words errors.
 *
 * Why: every search validates its scope and query. In a long-running engine each search runs
 * after other work has pushed its code out of the CPU caches, and zod's generic walk over the
 * schema tree (≈ 40 schema objects, a payload and an issues array per field) was a third of a
 * search's time there (issue #12: 0.30 of ≈ 1.0 ms per call).
 */
import { isSessionId } from "@tapedeck/session/core";
import type * as z from "zod/mini";
import {
  EVENT_ORDERS,
  MAX_CURSOR_LENGTH,
  MAX_LIMIT,
  MAX_MARKER_LENGTH,
  MAX_SCOPE_WORKSPACES,
  MAX_TEXT_LENGTH,
  MAX_WORKSPACE_ID_LENGTH,
  PREFIX_MATCHINGS,
} from "./query-limits";
import type { eventSearchQuerySchema, ParsedScope } from "./query-schema";

/** What `eventSearchQuerySchema` returns. */
export type ParsedEventQuery = z.output<ReturnType<typeof eventSearchQuerySchema>>;

/** An object literal (or one without a prototype): the only inputs the fast paths look at. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * True when the `keys` keys `for…in` gave are all of `value`'s own: none is hidden from it (not
 * enumerable, which the schema still reads: a hidden `text` or `types` was dropped) or inherited.
 */
function sawEveryKey(value: object, keys: number): boolean {
  return Object.getOwnPropertyNames(value).length === keys;
}

function isShortString(value: unknown, maxLength: number): value is string {
  return typeof value === "string" && value.length <= maxLength;
}

/**
 * The scope as `queryScopeSchema` parses it, or `undefined` when the schema must decide:
 * `{ all: true }` or `{ workspaceIds: [...] }` within its limits.
 */
export function fastScope(scope: unknown): ParsedScope | undefined {
  if (!isPlainObject(scope)) return undefined;
  let only: string | undefined;
  // `for…in`, as the schema's strict check walks keys (inherited enumerable ones included).
  for (const key in scope) {
    if (only !== undefined) return undefined;
    only = key;
  }
  if (!sawEveryKey(scope, 1)) return undefined;
  if (only === "all") return scope.all === true ? { all: true } : undefined;
  if (only !== "workspaceIds") return undefined;
  const ids = scope.workspaceIds;
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MAX_SCOPE_WORKSPACES) return undefined;
  const workspaceIds: string[] = [];
  for (let index = 0; index < ids.length; index += 1) {
    const id: unknown = ids[index];
    if (!isShortString(id, MAX_WORKSPACE_ID_LENGTH) || id.length < 1) return undefined;
    workspaceIds.push(id);
  }
  return { workspaceIds };
}

/** `{ open, close }` markers as the schema parses them, or `undefined`. */
function fastMarkers(value: unknown): { open: string; close: string } | undefined {
  if (!isPlainObject(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    if (key !== "open" && key !== "close") return undefined;
    keys += 1;
  }
  const { open, close } = value;
  if (keys !== 2 || !isShortString(open, MAX_MARKER_LENGTH)) return undefined;
  return isShortString(close, MAX_MARKER_LENGTH) ? { open, close } : undefined;
}

/** The keys the fast path checks; the others (`types`, `roles`, times, …) go to the schema. */
const fastKeys = new Set([
  "text",
  "prefix",
  "sessionId",
  "currentOnly",
  "order",
  "limit",
  "cursor",
  "highlight",
]);

/** Marks a field the fast path leaves to the schema. */
const declined = Symbol("declined");

/** One field of an event query as the schema parses it, or {@link declined}. */
function fastField(key: string, value: unknown): unknown {
  if (value === undefined) return fastKeys.has(key) ? undefined : declined;
  switch (key) {
    case "text":
      return isShortString(value, MAX_TEXT_LENGTH) ? value : declined;
    case "cursor":
      return isShortString(value, MAX_CURSOR_LENGTH) ? value : declined;
    case "prefix":
      return (PREFIX_MATCHINGS as readonly unknown[]).includes(value) ? value : declined;
    case "order":
      return (EVENT_ORDERS as readonly unknown[]).includes(value) ? value : declined;
    case "currentOnly":
      return typeof value === "boolean" ? value : declined;
    case "sessionId":
      return typeof value === "string" && isSessionId(value) ? value : declined;
    case "limit":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= 1
        ? Math.min(value, MAX_LIMIT)
        : declined;
    case "highlight":
      return fastMarkers(value) ?? declined;
    default:
      return declined;
  }
}

/**
 * The event query as `eventSearchQuerySchema` parses it, or `undefined` when the schema must
 * decide. Handles `text`, `prefix`, `sessionId`, `currentOnly`, `order`, `limit`, `cursor` and
 * `highlight`; a key given as `undefined` is kept as the schema keeps it.
 */
export function fastEventQuery(query: unknown): ParsedEventQuery | undefined {
  if (!isPlainObject(query)) return undefined;
  const parsed: Record<string, unknown> = {};
  let keys = 0;
  for (const key in query) {
    const value = fastField(key, query[key]);
    if (value === declined) return undefined;
    parsed[key] = value;
    keys += 1;
  }
  return sawEveryKey(query, keys) ? (parsed as ParsedEventQuery) : undefined;
}
