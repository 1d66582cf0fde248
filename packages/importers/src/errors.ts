import { TapedeckError } from "@tapedeck/session";

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
