import { TapedeckError } from "@tapedeck/session";

const importMarker = "tapedeck.error.ImportError";
const importSymbol = Symbol.for(importMarker);

/**
 * An import read nothing: every named file was missing, unreadable or not the claimed format.
 * Damage inside a file that was otherwise read is not an error; it is counted as skipped.
 */
export class ImportError extends TapedeckError {
  readonly [importSymbol] = true;
  /** The paths that were tried. */
  readonly paths: readonly string[];

  constructor(message: string, paths: readonly string[], options: { cause?: unknown } = {}) {
    super("IMPORT_NOTHING_READ", message, options);
    this.name = "ImportError";
    this.paths = paths;
  }

  /** True for an `ImportError` from any copy of this package. */
  static override isInstance(error: unknown): error is ImportError {
    return TapedeckError.hasMarker(error, importMarker);
  }
}

const notAFileMarker = "tapedeck.error.NotAFileError";
const notAFileSymbol = Symbol.for(notAFileMarker);

/**
 * A source path that is neither a folder nor a regular file (a FIFO, socket or device): reading
 * it could block forever, so it is reported as not read.
 */
export class NotAFileError extends TapedeckError {
  readonly [notAFileSymbol] = true;

  constructor(readonly path: string) {
    super("IMPORT_NOT_A_FILE", "not a regular file (a FIFO, socket or device)");
    this.name = "NotAFileError";
  }

  /** True for a `NotAFileError` from any copy of this package. */
  static override isInstance(error: unknown): error is NotAFileError {
    return TapedeckError.hasMarker(error, notAFileMarker);
  }
}
