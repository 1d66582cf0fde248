import { isSessionId, KNOWN_EVENT_TYPES } from "@tapedeck/session";
import { SESSION_STATUSES } from "@tapedeck/session-query";
import { z } from "zod";
import { INPUT_LIMIT } from "../shared/limits";

/** A session id path or body value: a lowercase UUID, checked before any path is built. */
export const sessionIdSchema = z
  .string()
  .refine(isSessionId, "not a session id (a lowercase UUID)");

/** A blob's name: its sha256, lowercase hex. */
export const blobHashSchema = z.string().regex(/^[0-9a-f]{64}$/, "not a blob name (a sha256)");

/** `GET /api/blobs/:hash?type=`: the image type to serve it as (raster images only). */
export const blobQuerySchema = z.object({
  type: z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]).optional(),
});

const isoTime = z.iso.datetime({ offset: true });
const limit = z.coerce.number().int().min(1).max(200);
const csv = <T extends z.ZodType<string, string>>(item: T) =>
  z
    .string()
    .transform((value) => value.split(",").filter((part) => part !== ""))
    .pipe(z.array(item).min(1));

/**
 * How the last word of `q` matches: `none` (default) whole words; `last` as a prefix (the
 * search box, while the user types). See `@tapedeck/session-query`'s `PrefixMatching`.
 */
const prefix = z.enum(["none", "last"]);

/** `GET /api/sessions` query. */
export const sessionsQuerySchema = z.strictObject({
  q: z.string().max(2000).optional(),
  prefix: prefix.optional(),
  workspace: z.string().min(1).max(4096).optional(),
  status: z.enum(SESSION_STATUSES).optional(),
  orderBy: z.enum(["updatedAt", "createdAt"]).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  limit: limit.optional(),
  cursor: z.string().max(4096).optional(),
  token: z.string().optional(),
});

/** `GET /api/sessions/:id` query. */
export const sessionQuerySchema = z.strictObject({
  chunks: z.enum(["true", "false"]).optional(),
  token: z.string().optional(),
});

/**
 * `GET /api/sessions/:id/page` query: `limit` events (then back to the start of their turn),
 * ending before seq `before` (and its line's offset `beforeOffset`, from a page read by
 * position), reaching back to seq `from` when set.
 */
export const sessionPageQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(5000).optional(),
    before: z.coerce.number().int().min(1).optional(),
    beforeOffset: z.coerce.number().int().min(0).optional(),
    from: z.coerce.number().int().min(1).optional(),
    token: z.string().optional(),
  })
  .refine((query) => query.beforeOffset === undefined || query.before !== undefined, {
    message: "beforeOffset needs before",
    path: ["beforeOffset"],
  });

/** `GET /api/events` query. */
export const eventsQuerySchema = z.strictObject({
  q: z.string().max(2000).optional(),
  prefix: prefix.optional(),
  sessionId: sessionIdSchema.optional(),
  workspace: z.string().min(1).max(4096).optional(),
  types: csv(z.enum(KNOWN_EVENT_TYPES)).optional(),
  roles: csv(z.enum(["system", "developer", "user", "assistant"])).optional(),
  tool: z.string().min(1).max(200).optional(),
  callId: z.string().min(1).max(200).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  currentOnly: z.enum(["true", "false"]).optional(),
  order: z.enum(["newest", "oldest", "relevance"]).optional(),
  limit: limit.optional(),
  cursor: z.string().max(4096).optional(),
  token: z.string().optional(),
});

/** A positive seq in a path. */
export const seqSchema = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** `POST /api/sessions/:id/fork` body. */
export const forkBodySchema = z.strictObject({ seq: z.number().int().min(0).optional() });

/** `POST /api/sessions/:id/rewind`: the event to rewind to and how. */
export const rewindBodySchema = z.strictObject({
  seq: z.number().int().min(0),
  filesOnly: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  force: z.boolean().optional(),
});

/** `POST /api/sessions/:id/rewind/undo`: the rewind the page showed (its `undo` checkpoint). */
export const rewindUndoBodySchema = z.strictObject({
  undo: z
    .string()
    .regex(
      /^(?:[0-9a-f]{40,64}|lc-[0-9a-f]{32})$/,
      "a checkpoint id (40 or 64 hex digits, or lc- and 32 for a light checkpoint)",
    ),
  dryRun: z.boolean().optional(),
});

/** `GET /api/sessions/:id/checkpoints/:seq/file`: the workspace-relative path. */
export const checkpointFileQuerySchema = z.object({
  path: z.string().min(1).max(4096),
  token: z.string().optional(),
});

const policySchema = z.enum(["ask", "auto", "deny"]);

/** `POST /api/agent/stream` body. */
export const agentStreamBodySchema = z
  .strictObject({
    input: z
      .string()
      .trim()
      .min(1, "input must not be empty")
      .max(INPUT_LIMIT, `input must be at most ${INPUT_LIMIT.toLocaleString("en-US")} characters`),
    sessionId: sessionIdSchema.optional(),
    forkFrom: z
      .strictObject({ sessionId: sessionIdSchema, seq: z.number().int().min(0).optional() })
      .optional(),
    policy: policySchema.optional(),
  })
  .refine((body) => body.sessionId === undefined || body.forkFrom === undefined, {
    message: "give either sessionId (continue) or forkFrom (fork), not both",
    path: ["forkFrom"],
  });

/**
 * `POST /api/agent` body. The endpoint is stateless: a `sessionId` is accepted and ignored (as the
 * seed behaviour says), never an error; use `POST /api/agent/stream` to continue a session.
 */
export const agentOnceBodySchema = z.strictObject({
  input: z
    .string()
    .trim()
    .min(1, "input must not be empty")
    .max(INPUT_LIMIT, `input must be at most ${INPUT_LIMIT.toLocaleString("en-US")} characters`),
  sessionId: z.unknown().optional(),
});

/** `POST /api/agent/approvals/:runId/:callId` body. */
export const approvalBodySchema = z.strictObject({
  decision: z.enum(["allow_once", "allow_always", "reject"]),
});

/** A run id in a path (UUID). */
export const runIdSchema = z.string().regex(/^[0-9a-f-]{36}$/, "not a run id");
/**
 * `GET /api/agent/runs/:runId/events` query: re-attach after the event with this index (the SSE
 * `id` of the last event the client has; `Last-Event-ID` says the same). Absent: from the start.
 */
export const runEventsQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional(),
  token: z.string().optional(),
});

/** A call id in a path. */
export const callIdSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, "not a call id");

/** `PUT /api/sessions/:id/goal` body: the standing goal, or `null` to clear it. */
export const goalBodySchema = z.strictObject({
  goal: z.string().trim().min(1, "goal must not be empty").max(2000).nullable(),
});

/** `GET /api/short-ids`: up to 100 session ids, comma-separated. */
export const shortIdsQuerySchema = z.object({
  ids: csv(sessionIdSchema).pipe(z.array(z.string()).max(100)),
});
