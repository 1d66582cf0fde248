import { TapedeckError } from "@tapedeck/session";

const invalidOffsetMarker = "tapedeck.error.InvalidOffsetError";
const invalidOffsetSymbol = Symbol.for(invalidOffsetMarker);

/**
 * A read was asked to start at a byte offset or line that is not the start of an event line of
 * the log (code `INVALID_OFFSET`). A reader that kept a cursor treats it as "the log changed
 * under me" and reads the session again from its start.
 */
export class InvalidOffsetError extends TapedeckError {
  readonly [invalidOffsetSymbol] = true;
  /** The session read, when the offset was checked against its log. */
  readonly sessionId: string | undefined;

  constructor(message: string, fields: { sessionId?: string } = {}) {
    super("INVALID_OFFSET", message);
    this.name = "InvalidOffsetError";
    this.sessionId = fields.sessionId;
  }

  static override isInstance(error: unknown): error is InvalidOffsetError {
    return TapedeckError.hasMarker(error, invalidOffsetMarker);
  }
}

const hasForksMarker = "tapedeck.error.SessionHasForksError";
const hasForksSymbol = Symbol.for(hasForksMarker);

/** A session cannot be deleted while forks read their prefix from it (code `SESSION_HAS_FORKS`). */
export class SessionHasForksError extends TapedeckError {
  readonly [hasForksSymbol] = true;
  readonly sessionId: string;
  /** The ids of the forks that reference it. */
  readonly forks: string[];

  constructor(sessionId: string, forks: string[]) {
    super(
      "SESSION_HAS_FORKS",
      `session ${sessionId} cannot be deleted while forks read from it: ${forks.join(", ")}. Delete those first.`,
    );
    this.name = "SessionHasForksError";
    this.sessionId = sessionId;
    this.forks = forks;
  }

  static override isInstance(error: unknown): error is SessionHasForksError {
    return TapedeckError.hasMarker(error, hasForksMarker);
  }
}

const forkPointMarker = "tapedeck.error.InvalidForkPointError";
const forkPointSymbol = Symbol.for(forkPointMarker);

/**
 * A fork point that is not a seq of the parent (code `INVALID_FORK_POINT`): not a whole number,
 * negative, or past the parent's last seq.
 */
export class InvalidForkPointError extends TapedeckError {
  readonly [forkPointSymbol] = true;

  constructor(message: string) {
    super("INVALID_FORK_POINT", message);
    this.name = "InvalidForkPointError";
  }

  static override isInstance(error: unknown): error is InvalidForkPointError {
    return TapedeckError.hasMarker(error, forkPointMarker);
  }
}

const blobReadMarker = "tapedeck.error.BlobReadError";
const blobReadSymbol = Symbol.for(blobReadMarker);

/**
 * A blob could not be read (code `BLOB_MISSING` or `BLOB_CORRUPT`): it is not there, it does not
 * decompress, or its bytes hash to another name. A log reader turns it into an
 * `EventLogCorruptError` with the same code that names the event.
 */
export class BlobReadError extends TapedeckError {
  readonly [blobReadSymbol] = true;
  declare readonly code: "BLOB_MISSING" | "BLOB_CORRUPT";
  /** The blob's name (its sha256). */
  readonly hash: string;
  /**
   * The failure is in a compressed form (`.zst`, a delta or its base): `compact` writes those
   * durably before any log names them in that form, so it is damage, never a writer's blob a
   * power cut cut short (architecture/storage.md).
   */
  readonly compressed: boolean;

  constructor(
    code: "BLOB_MISSING" | "BLOB_CORRUPT",
    hash: string,
    message: string,
    compressed = false,
  ) {
    super(code, message);
    this.name = "BlobReadError";
    this.hash = hash;
    this.compressed = compressed;
  }

  static override isInstance(error: unknown): error is BlobReadError {
    return TapedeckError.hasMarker(error, blobReadMarker);
  }
}

const blobHashMarker = "tapedeck.error.InvalidBlobHashError";
const blobHashSymbol = Symbol.for(blobHashMarker);

/** A blob was named by something that is not a lowercase sha256 in hex (code `INVALID_BLOB_HASH`). */
export class InvalidBlobHashError extends TapedeckError {
  readonly [blobHashSymbol] = true;

  constructor(hash: string) {
    super("INVALID_BLOB_HASH", `${JSON.stringify(hash)} is not a blob name (a sha256 in hex).`);
    this.name = "InvalidBlobHashError";
  }

  static override isInstance(error: unknown): error is InvalidBlobHashError {
    return TapedeckError.hasMarker(error, blobHashMarker);
  }
}

const compressMarker = "tapedeck.error.LogCompressionError";
const compressSymbol = Symbol.for(compressMarker);

/**
 * Compressing a log gave bytes that do not decompress to the log (code `COMPRESSION_MISMATCH`):
 * the plain log is left as it was.
 */
export class LogCompressionError extends TapedeckError {
  readonly [compressSymbol] = true;

  constructor(path: string) {
    super("COMPRESSION_MISMATCH", `Compressing ${path} did not round-trip; the log is left plain.`);
    this.name = "LogCompressionError";
  }

  static override isInstance(error: unknown): error is LogCompressionError {
    return TapedeckError.hasMarker(error, compressMarker);
  }
}
