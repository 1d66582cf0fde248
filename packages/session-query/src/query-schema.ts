/**
 * zod schemas for everything a caller hands the engine. Strict: unknown keys are refused, so a
 * typo (or an attempt to smuggle a wider scope) is an error, not a silent no-op.
 */
import { isSessionId, knownEventSchemas, lazySchema, messageRoleSchema } from "@tapedeck/session";
import { z } from "zod";
import { InvalidQueryError } from "./errors";

/** Largest page any operation returns; larger `limit`s are capped to it. */
export const MAX_LIMIT = 200;
/** Page size when `limit` is not given. */
export const DEFAULT_LIMIT = 20;

/** A {@link QueryScope}. Built on first use, like every schema here (`lazySchema`). */
export const queryScopeSchema = lazySchema(() => {
  const workspaceIdSchema = z.string().min(1).max(4096);
  return z.union([
    z.strictObject({ all: z.literal(true) }),
    z.strictObject({ workspaceIds: z.array(workspaceIdSchema).min(1).max(1000) }),
  ]);
});

/** A session id: a lowercase UUID. */
export const sessionIdSchema = lazySchema(() =>
  z.string().refine(isSessionId, { message: "expected a session id (a lowercase UUID)" }),
);

/** The fields shared by the query schemas, built once, on the first query. */
const fields = lazySchema(() => ({
  time: z
    .string()
    .max(64)
    .refine((value) => /^\d{4}-\d\d-\d\d/.test(value) && !Number.isNaN(Date.parse(value)), {
      message: "expected an ISO-8601 time such as 2026-01-31T12:00:00.000Z",
    }),
  limit: z
    .number()
    .int()
    .min(1)
    .transform((value) => Math.min(value, MAX_LIMIT)),
  prefix: z.enum(["none", "last"]),
}));

/** An {@link EventSearchQuery}. */
export const eventSearchQuerySchema = lazySchema(() => {
  const { time, limit, prefix } = fields();
  const eventTypeSchema = z
    .string()
    .refine((value) => Object.hasOwn(knownEventSchemas, value) || /^x-[\w./-]+$/.test(value), {
      message: 'expected an event type such as "message" or "function_call" (or an "x-" extension)',
    });
  return z.strictObject({
    text: z.string().max(2000).optional(),
    prefix: prefix.optional(),
    sessionId: sessionIdSchema().optional(),
    types: z.array(eventTypeSchema).min(1).max(32).optional(),
    roles: z.array(messageRoleSchema).min(1).optional(),
    toolName: z.string().min(1).max(256).optional(),
    callId: z.string().min(1).max(256).optional(),
    since: time.optional(),
    until: time.optional(),
    currentOnly: z.boolean().optional(),
    order: z.enum(["newest", "oldest", "relevance"]).optional(),
    limit: limit.optional(),
    cursor: z.string().max(4096).optional(),
    highlight: z.strictObject({ open: z.string().max(64), close: z.string().max(64) }).optional(),
  });
});

/** A {@link ListSessionsOptions}. */
export const listSessionsOptionsSchema = lazySchema(() =>
  z.strictObject({
    orderBy: z.enum(["updatedAt", "createdAt"]).optional(),
    status: z.enum(["active", "completed", "interrupted", "damaged"]).optional(),
    limit: fields().limit.optional(),
    cursor: z.string().max(4096).optional(),
  }),
);

/** A {@link SessionSearchQuery}. */
export const sessionSearchQuerySchema = lazySchema(() => {
  const { time, prefix } = fields();
  return listSessionsOptionsSchema().extend({
    text: z.string().max(2000).optional(),
    prefix: prefix.optional(),
    since: time.optional(),
    until: time.optional(),
  });
});

const seqSchema = lazySchema(() => z.number().int().min(1));

/**
 * Parses `value` with `schema`; on failure throws {@link InvalidQueryError} naming the first bad
 * field, prefixed with `root` (e.g. `query.limit`).
 */
export function parseInput<T extends z.ZodType>(
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

/** Validates a scope. */
export function parseScope(scope: unknown): ParsedScope {
  return parseInput(queryScopeSchema(), scope, "scope");
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
