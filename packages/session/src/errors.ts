/**
 * Errors shared by every Tapedeck package.
 *
 * Each error carries a string `code` and a marker symbol so that `isInstance` works across
 * bundles and duplicated package copies (the AI SDK's marker pattern), where `instanceof` fails.
 */

const marker = "tapedeck.error";
const symbol = Symbol.for(marker);

/** Options accepted by every Tapedeck error. */
export interface TapedeckErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Base class of every error Tapedeck throws on purpose. */
export class TapedeckError extends Error {
  readonly [symbol] = true;
  /** Stable, machine-readable error code (for example `SEQ_GAP` or `SESSION_NOT_FOUND`). */
  readonly code: string;

  constructor(code: string, message: string, options: TapedeckErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TapedeckError";
    this.code = code;
  }

  /** True for any Tapedeck error, even one created by another copy of this package. */
  static isInstance(error: unknown): error is TapedeckError {
    return TapedeckError.hasMarker(error, marker);
  }

  protected static hasMarker(error: unknown, name: string): boolean {
    if (typeof error !== "object" || error === null) return false;
    const record = error as Record<symbol, unknown>;
    return record[Symbol.for(name)] === true;
  }
}

/** Every code an {@link EventLogCorruptError} can carry (see architecture/session-log.md). */
export const eventLogErrorCodes = [
  "SEQ_GAP",
  "TURN_NESTING",
  "ORPHAN_OUTPUT",
  "DUPLICATE_OUTPUT",
  "BAD_REPLACE",
  "BAD_SOURCE",
  "DUPLICATE_CALL_ID",
  "BAD_HEADER",
  "BAD_JSON",
  "SCHEMA",
  "TORN_TAIL",
  "BLOB_MISSING",
  "BLOB_CORRUPT",
  "COLD_LOG_CORRUPT",
] as const;

/** Code of an {@link EventLogCorruptError}. */
export type EventLogErrorCode = (typeof eventLogErrorCodes)[number];

/** Where in a log file a problem sits. Line numbers are 1-based; offsets are byte offsets. */
export interface LogLocation {
  /** 1-based line number in the file (the header is line 1). */
  line?: number;
  /** Byte offset of the start of the line in the file. */
  offset?: number;
}

const corruptMarker = "tapedeck.error.EventLogCorruptError";
const corruptSymbol = Symbol.for(corruptMarker);

/**
 * A session log breaks the format or one of its invariants. The whole log is refused: a reader
 * never hands back a half-read session.
 */
export class EventLogCorruptError extends TapedeckError {
  readonly [corruptSymbol] = true;
  declare readonly code: EventLogErrorCode;
  /** Sequence number of the offending event, when it has one. */
  readonly seq: number | undefined;
  /** 1-based line number in the file, when known. */
  readonly line: number | undefined;
  /** Byte offset of the offending line in the file, when known. */
  readonly offset: number | undefined;
  /** Session the log belongs to, when known. */
  readonly sessionId: string | undefined;
  /** The problem alone, without the location prefix. */
  readonly detail: string;

  constructor(
    code: EventLogErrorCode,
    detail: string,
    fields: LogLocation & { seq?: number; sessionId?: string; cause?: unknown } = {},
  ) {
    super(code, EventLogCorruptError.format(code, detail, fields), { cause: fields.cause });
    this.name = "EventLogCorruptError";
    this.detail = detail;
    this.seq = fields.seq;
    this.line = fields.line;
    this.offset = fields.offset;
    this.sessionId = fields.sessionId;
  }

  /** A copy of this error with a location (and session id) filled in where it was missing. */
  withLocation(fields: LogLocation & { sessionId?: string }): EventLogCorruptError {
    const next: LogLocation & { seq?: number; sessionId?: string; cause?: unknown } = {
      cause: this.cause,
    };
    if (this.seq !== undefined) next.seq = this.seq;
    const line = this.line ?? fields.line;
    if (line !== undefined) next.line = line;
    const offset = this.offset ?? fields.offset;
    if (offset !== undefined) next.offset = offset;
    const sessionId = this.sessionId ?? fields.sessionId;
    if (sessionId !== undefined) next.sessionId = sessionId;
    return new EventLogCorruptError(this.code, this.detail, next);
  }

  static override isInstance(error: unknown): error is EventLogCorruptError {
    return TapedeckError.hasMarker(error, corruptMarker);
  }

  private static format(
    code: string,
    detail: string,
    fields: LogLocation & { seq?: number; sessionId?: string },
  ): string {
    const where: string[] = [];
    if (fields.sessionId !== undefined) where.push(`session ${fields.sessionId}`);
    if (fields.line !== undefined) where.push(`line ${fields.line}`);
    if (fields.offset !== undefined) where.push(`byte ${fields.offset}`);
    if (fields.seq !== undefined) where.push(`seq ${fields.seq}`);
    return `${code}${where.length > 0 ? ` at ${where.join(", ")}` : ""}: ${detail}`;
  }
}

const notFoundMarker = "tapedeck.error.SessionNotFoundError";
const notFoundSymbol = Symbol.for(notFoundMarker);

/** No session with this id exists (or it lies outside the caller's scope, which looks the same). */
export class SessionNotFoundError extends TapedeckError {
  readonly [notFoundSymbol] = true;
  readonly sessionId: string;

  constructor(sessionId: string, options: TapedeckErrorOptions = {}) {
    super("SESSION_NOT_FOUND", `Session ${sessionId} was not found.`, options);
    this.name = "SessionNotFoundError";
    this.sessionId = sessionId;
  }

  static override isInstance(error: unknown): error is SessionNotFoundError {
    return TapedeckError.hasMarker(error, notFoundMarker);
  }
}

/** Who holds a session's write lock. */
export interface LockOwner {
  pid: number;
  host: string;
  /** ISO-8601 time the lock was taken. */
  startedAt: string;
}

const busyMarker = "tapedeck.error.SessionBusyError";
const busySymbol = Symbol.for(busyMarker);

/** Another live process is writing to this session. */
export class SessionBusyError extends TapedeckError {
  readonly [busySymbol] = true;
  readonly sessionId: string;
  /** The current lock holder, when the lock file could be read. */
  readonly owner: LockOwner | undefined;

  constructor(sessionId: string, owner?: LockOwner, options: TapedeckErrorOptions = {}) {
    super(
      "SESSION_BUSY",
      `Session ${sessionId} is busy: ${
        owner
          ? `process ${owner.pid} on ${owner.host} has been writing to it since ${owner.startedAt}`
          : "another process is writing to it"
      }. Wait for that run to finish or cancel it.`,
      options,
    );
    this.name = "SessionBusyError";
    this.sessionId = sessionId;
    this.owner = owner;
  }

  static override isInstance(error: unknown): error is SessionBusyError {
    return TapedeckError.hasMarker(error, busyMarker);
  }
}

const invalidIdMarker = "tapedeck.error.InvalidSessionIdError";
const invalidIdSymbol = Symbol.for(invalidIdMarker);

/** A session id that is not a lowercase UUID; refused before any path is built. */
export class InvalidSessionIdError extends TapedeckError {
  readonly [invalidIdSymbol] = true;
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(
      "INVALID_SESSION_ID",
      `${JSON.stringify(sessionId.slice(0, 80))} is not a session id (expected a lowercase UUID such as 0193b6e2-7c1a-7d3e-9f00-1a2b3c4d5e6f).`,
    );
    this.name = "InvalidSessionIdError";
    this.sessionId = sessionId;
  }

  static override isInstance(error: unknown): error is InvalidSessionIdError {
    return TapedeckError.hasMarker(error, invalidIdMarker);
  }
}
