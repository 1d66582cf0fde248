import { TapedeckError } from "@tapedeck/session";

const checkpointMarker = "tapedeck.error.CheckpointError";
const checkpointSymbol = Symbol.for(checkpointMarker);

/**
 * A checkpoint could not be taken, read or restored. `code`: `GIT_MISSING` (no `git` on PATH),
 * `GIT_FAILED` (a git command failed; `message` has its stderr), `GIT_INDEX_LOCKED` (another
 * process holds the private index's lock; retried), `WORKSPACE_REFUSED` (the home
 * folder or `/` is never checkpointed), `TOO_MANY_FILES`, `CHECKPOINT_NOT_FOUND`.
 */
export class CheckpointError extends TapedeckError {
  readonly [checkpointSymbol] = true;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = "CheckpointError";
  }

  static override isInstance(error: unknown): error is CheckpointError {
    return TapedeckError.hasMarker(error, checkpointMarker);
  }
}
