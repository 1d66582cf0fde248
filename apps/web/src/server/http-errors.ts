import { HandEditsError, UndoMovedError } from "@tapedeck/host";
import {
  EventLogCorruptError,
  InvalidSessionIdError,
  SessionBusyError,
  SessionNotFoundError,
  StorageFaultError,
  TapedeckError,
} from "@tapedeck/session";
import { EventNotFoundError, InvalidQueryError } from "@tapedeck/session-query";
import { BlobReadError } from "@tapedeck/session-store";
import type { Context } from "hono";
import type { z } from "zod";

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    /** For a damaged log: where the damage is. */
    line?: number;
    offset?: number;
    seq?: number;
    /** For a bad query or body: the offending field. */
    field?: string;
  };
}

/** A request the server refuses before touching anything (bad body, bad parameter). */
export class BadRequestError extends TapedeckError {
  readonly field: string;
  constructor(field: string, message: string) {
    super("BAD_REQUEST", message);
    this.name = "BadRequestError";
    this.field = field;
  }
}

/** Parses `value` with `schema`, turning a failure into a {@link BadRequestError} naming the field. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? what : issue.path.join(".");
  // A coerced query parameter that is not a number reads "expected number, received NaN".
  const message =
    issue?.code === "invalid_type" && issue.expected === "number"
      ? "must be a number"
      : (issue?.message ?? "invalid");
  // `Invalid sessionId: not a session id`, not `Invalid sessionId: sessionId: not a session id`.
  throw new BadRequestError(
    field,
    field === what ? `Invalid ${what}: ${message}` : `Invalid ${what}: ${field}: ${message}`,
  );
}

/** Maps an error to an HTTP status and JSON body; unknown errors are 500 without internals. */
export function toHttpError(error: unknown): {
  status: 400 | 404 | 409 | 422 | 500 | 503;
  body: ErrorBody;
} {
  if (error instanceof BadRequestError) {
    return {
      status: 400,
      body: { error: { code: error.code, message: error.message, field: error.field } },
    };
  }
  if (InvalidQueryError.isInstance(error)) {
    return {
      status: 400,
      body: { error: { code: error.code, message: error.message, field: error.field } },
    };
  }
  if (InvalidSessionIdError.isInstance(error)) {
    return {
      status: 400,
      body: { error: { code: error.code, message: error.message, field: "sessionId" } },
    };
  }
  if (BlobReadError.isInstance(error)) {
    // A missing blob is not there; a damaged one is like a damaged log.
    const status = error.code === "BLOB_MISSING" ? 404 : 422;
    return { status, body: { error: { code: error.code, message: error.message } } };
  }
  if (SessionNotFoundError.isInstance(error) || EventNotFoundError.isInstance(error)) {
    return { status: 404, body: { error: { code: error.code, message: error.message } } };
  }
  if (
    SessionBusyError.isInstance(error) ||
    HandEditsError.isInstance(error) ||
    UndoMovedError.isInstance(error)
  ) {
    return { status: 409, body: { error: { code: error.code, message: error.message } } };
  }
  if (EventLogCorruptError.isInstance(error)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.line !== undefined) body.error.line = error.line;
    if (error.offset !== undefined) body.error.offset = error.offset;
    if (error.seq !== undefined) body.error.seq = error.seq;
    return { status: 422, body };
  }
  if (StorageFaultError.isInstance(error)) {
    // The disk is full or the home read-only: the request was fine, the server cannot serve it.
    return { status: 503, body: { error: { code: error.code, message: error.message } } };
  }
  if (TapedeckError.isInstance(error)) {
    return { status: 400, body: { error: { code: error.code, message: error.message } } };
  }
  return {
    status: 500,
    body: { error: { code: "INTERNAL", message: "Internal server error; see the server log." } },
  };
}

/** The request body as JSON; refuses anything but `application/json` (see below). */
export async function jsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  // A JSON content type makes a cross-site POST need a CORS preflight, which this server never
  // grants; a form or text/plain POST from another page is refused here.
  if (!type.toLowerCase().startsWith("application/json")) {
    throw new BadRequestError("content-type", "Request body must be application/json.");
  }
  try {
    return await c.req.json();
  } catch {
    throw new BadRequestError("body", "Request body is not valid JSON.");
  }
}
