/**
 * zod schemas for everything a caller hands the engine. Strict: unknown keys are refused, so a
 * typo (or an attempt to smuggle a wider scope) is an error, not a silent no-op.
 *
 * Written with `zod/mini` (the same validation core as `zod`, tree-shakable): `tapedeck sessions
 * search` validates its query with these and never loads zod's classic API (issue #12, see
 * `architecture/session-query.md`). Error messages are zod's English ones, as with `zod`.
 */
import { isKnownEventType, isSessionId, lazySchema, MESSAGE_ROLES } from "@tapedeck/session/core";
import * as z from "zod/mini";
import { InvalidQueryError } from "./errors";
import { SESSION_STATUSES } from "./query-engine";
import { fastScope } from "./query-fast-path";
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
import { useEnglishMessages } from "./zod-english";

export { DEFAULT_LIMIT, MAX_LIMIT } from "./query-limits";

/** A {@link QueryScope}. Built on first use, like every schema here (`lazySchema`). */
export const queryScopeSchema = lazySchema(() => {
  useEnglishMessages();
  const workspaceIdSchema = z.string().check(z.minLength(1), z.maxLength(MAX_WORKSPACE_ID_LENGTH));
  return z.union([
    z.strictObject({ all: z.literal(true) }),
    z.strictObject({
      workspaceIds: z
        .array(workspaceIdSchema)
        .check(z.minLength(1), z.maxLength(MAX_SCOPE_WORKSPACES)),
    }),
  ]);
});

/** A session id: a lowercase UUID. */
export const sessionIdSchema = lazySchema(() => {
  useEnglishMessages();
  return z
    .string()
    .check(z.refine(isSessionId, { message: "expected a session id (a lowercase UUID)" }));
});

/** The fields shared by the query schemas, built once, on the first query. */
const fields = lazySchema(() => {
  useEnglishMessages();
  return {
    time: z.string().check(
      z.maxLength(64),
      z.refine((value) => /^\d{4}-\d\d-\d\d/.test(value) && !Number.isNaN(Date.parse(value)), {
        message: "expected an ISO-8601 time such as 2026-01-31T12:00:00.000Z",
      }),
    ),
    limit: z.pipe(
      z.number().check(z.int(), z.minimum(1)),
      z.transform((value: number) => Math.min(value, MAX_LIMIT)),
    ),
    prefix: z.enum(PREFIX_MATCHINGS),
  };
});

/** An {@link EventSearchQuery}. */
export const eventSearchQuerySchema = lazySchema(() => {
  const { time, limit, prefix } = fields();
  const eventTypeSchema = z.string().check(
    z.refine((value) => isKnownEventType(value) || /^x-[\w./-]+$/.test(value), {
      message: 'expected an event type such as "message" or "function_call" (or an "x-" extension)',
    }),
  );
  const name = z.string().check(z.minLength(1), z.maxLength(256));
  const marker = z.string().check(z.maxLength(MAX_MARKER_LENGTH));
  return z.strictObject({
    text: z.optional(z.string().check(z.maxLength(MAX_TEXT_LENGTH))),
    prefix: z.optional(prefix),
    sessionId: z.optional(sessionIdSchema()),
    types: z.optional(z.array(eventTypeSchema).check(z.minLength(1), z.maxLength(32))),
    roles: z.optional(z.array(z.enum(MESSAGE_ROLES)).check(z.minLength(1))),
    toolName: z.optional(name),
    callId: z.optional(name),
    since: z.optional(time),
    until: z.optional(time),
    currentOnly: z.optional(z.boolean()),
    order: z.optional(z.enum(EVENT_ORDERS)),
    limit: z.optional(limit),
    cursor: z.optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH))),
    highlight: z.optional(z.strictObject({ open: marker, close: marker })),
  });
});

/** A {@link ListSessionsOptions}. */
export const listSessionsOptionsSchema = lazySchema(() =>
  z.strictObject({
    orderBy: z.optional(z.enum(["updatedAt", "createdAt"])),
    status: z.optional(z.enum(SESSION_STATUSES)),
    limit: z.optional(fields().limit),
    cursor: z.optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH))),
  }),
);

/** A {@link SessionSearchQuery}. */
export const sessionSearchQuerySchema = lazySchema(() => {
  const { time, prefix } = fields();
  return z.extend(listSessionsOptionsSchema(), {
    text: z.optional(z.string().check(z.maxLength(MAX_TEXT_LENGTH))),
    prefix: z.optional(prefix),
    since: z.optional(time),
    until: z.optional(time),
  });
});

const seqSchema = lazySchema(() => {
  useEnglishMessages();
  return z.number().check(z.int(), z.minimum(1));
});

/**
 * Parses `value` with `schema`; on failure throws {@link InvalidQueryError} naming the first bad
 * field, prefixed with `root` (e.g. `query.limit`).
 */
export function parseInput<T extends z.ZodMiniType>(
  schema: T,
  value: unknown,
  root: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue === undefined ? [] : issue.path.map(String);
  throw new InvalidQueryError(
    [root, ...path].filter((part) => part !== "").join("."),
    issue?.message ?? "invalid value",
    { cause: result.error },
  );
}

/** The validated scope. */
export type ParsedScope = z.output<ReturnType<typeof queryScopeSchema>>;

/** Validates a scope (the common shapes without zod: `query-fast-path.ts`). */
export function parseScope(scope: unknown): ParsedScope {
  return fastScope(scope) ?? parseInput(queryScopeSchema(), scope, "scope");
}

/** Validates a session id argument. */
export function parseSessionId(sessionId: unknown): string {
  return parseInput(sessionIdSchema(), sessionId, "sessionId");
}

/** Validates a seq argument. */
export function parseSeq(seq: unknown): number {
  return parseInput(seqSchema(), seq, "seq");
}

/** True when the scope lets the caller see sessions of `workspaceId`. */
export function scopeAllows(scope: ParsedScope, workspaceId: string): boolean {
  return "all" in scope || scope.workspaceIds.includes(workspaceId);
}

/** Milliseconds of an ISO time that already passed validation. */
export function timeMs(value: string): number {
  return Date.parse(value);
}
