import { TapedeckError } from "@tapedeck/session/core";

const invalidQueryMarker = "tapedeck.error.InvalidQueryError";
const invalidQuerySymbol = Symbol.for(invalidQueryMarker);

/**
 * A query, option object, scope or cursor that does not validate. `field` names the offending
 * input (for example `limit`, `scope.workspaceIds`, `cursor`), so a caller can point at it.
 */
export class InvalidQueryError extends TapedeckError {
  readonly [invalidQuerySymbol] = true;
  /** Dotted path of the offending input, `(root)` when the whole value is wrong. */
  readonly field: string;
  /** The problem alone, without the field prefix. */
  readonly detail: string;

  constructor(field: string, detail: string, options: { cause?: unknown } = {}) {
    super("INVALID_QUERY", `Invalid query: ${field}: ${detail}`, options);
    this.name = "InvalidQueryError";
    this.field = field;
    this.detail = detail;
  }

  static override isInstance(error: unknown): error is InvalidQueryError {
    return TapedeckError.hasMarker(error, invalidQueryMarker);
  }
}

const eventNotFoundMarker = "tapedeck.error.EventNotFoundError";
const eventNotFoundSymbol = Symbol.for(eventNotFoundMarker);

/** The session exists (and is in scope) but has no event with this seq. */
export class EventNotFoundError extends TapedeckError {
  readonly [eventNotFoundSymbol] = true;
  readonly sessionId: string;
  readonly seq: number;

  constructor(sessionId: string, seq: number) {
    super("EVENT_NOT_FOUND", `Session ${sessionId} has no event with seq ${seq}.`);
    this.name = "EventNotFoundError";
    this.sessionId = sessionId;
    this.seq = seq;
  }

  static override isInstance(error: unknown): error is EventNotFoundError {
    return TapedeckError.hasMarker(error, eventNotFoundMarker);
  }
}
