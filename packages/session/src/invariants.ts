/**
 * The seven invariants of the log format as one state machine: the part of a replayed session
 * they look at ({@link InvariantState}) and one {@link stepInvariants} that checks an event
 * against it. `Session.append` steps it for every event; the index keeps it between syncs (as
 * an {@link InvariantSnapshot}) so appended bytes are checked exactly as a replay of the whole
 * log would check them, reading only the new bytes. One definition, so the two cannot drift.
 */
import { EventLogCorruptError, type EventLogErrorCode, type LogLocation } from "./errors";
import type { SessionEvent } from "./schema";
import { SeqFlags } from "./seq-flags";
import { isSurfaceEvent } from "./surface";

/**
 * What the invariants look at after some events. Plain data, serialisable with
 * {@link invariantSnapshot}; its owner advances it with {@link stepInvariants} only.
 */
export interface InvariantState {
  /** seq of the last event (a fork without events of its own: `parent.seq`). */
  last: number;
  /** seq of the open turn's `turn/start`, or `null` between turns. */
  turn: number | null;
  /** Every `function_call`'s callId with its seq, in order (a fork's prefix included). */
  readonly calls: Map<string, number>;
  /** callIds of the calls without an output yet, in call order. */
  readonly pending: Set<string>;
  /** seqs visible on the surface now. */
  readonly visible: SeqFlags;
}

/** An event the state refuses: the code and the sentence a replay reports. */
export interface InvariantViolation {
  code: EventLogErrorCode;
  /** The problem alone, without the location (see `EventLogCorruptError.detail`). */
  detail: string;
}

/** The state kept between two syncs of an index (JSON). */
export interface InvariantSnapshot {
  /** Format of this object. */
  v: 1;
  /** See {@link InvariantState.last}. */
  last: number;
  /** See {@link InvariantState.turn}. */
  turn: number | null;
  /** See {@link InvariantState.calls}. */
  calls: [string, number][];
  /** See {@link InvariantState.pending}. */
  pending: string[];
  /** See {@link InvariantState.visible}, ascending. */
  visible: number[];
}

/** Types that may only stand inside an open turn (invariant 3). */
const turnScoped = new Set<string>([
  "model/request",
  "model/response",
  "assistant/chunk",
  "function_call",
  "function_call_output",
  "approval/request",
  "approval/decision",
]);

/** The state before a log's first event (`last`: a fork's `parent.seq`, else 0). */
export function emptyInvariantState(last = 0): InvariantState {
  return { last, turn: null, calls: new Map(), pending: new Set(), visible: new SeqFlags() };
}

/**
 * Checks one event against the state. On a violation, returns it and leaves the state as it
 * was; otherwise returns the state advanced past the event. The state is advanced in place (its
 * owner keeps one state per log and never reads an older one): a copy per event would make a
 * replay quadratic in the log's calls.
 */
export function stepInvariants(
  state: InvariantState,
  event: SessionEvent,
): InvariantState | InvariantViolation {
  const violation = invariantViolation(state, event);
  if (violation !== null) return violation;
  advance(state, event);
  return state;
}

/** True when a {@link stepInvariants} result is a violation. */
export function isInvariantViolation(
  result: InvariantState | InvariantViolation,
): result is InvariantViolation {
  return "code" in result;
}

/** The error a replay throws for a violation: the event's seq, the log's session, `location`. */
export function invariantError(
  violation: InvariantViolation,
  event: SessionEvent,
  sessionId: string,
  location: LogLocation = {},
): EventLogCorruptError {
  return new EventLogCorruptError(violation.code, violation.detail, {
    ...location,
    seq: event.seq,
    sessionId,
  });
}

/** What to keep until the next sync (JSON; {@link restoreInvariantState} reads it back). */
export function invariantSnapshot(state: InvariantState): InvariantSnapshot {
  return {
    v: 1,
    last: state.last,
    turn: state.turn,
    calls: [...state.calls],
    pending: [...state.pending],
    visible: state.visible.values(),
  };
}

/** The state a {@link invariantSnapshot} kept; `null` when `value` is not one (an older index). */
export function restoreInvariantState(value: unknown): InvariantState | null {
  if (!isSnapshot(value)) return null;
  return {
    last: value.last,
    turn: value.turn,
    calls: new Map(value.calls),
    pending: new Set(value.pending),
    visible: new SeqFlags(value.visible),
  };
}

/** The violation `event` commits against `state`, or `null`. Reads the state only. */
function invariantViolation(state: InvariantState, event: SessionEvent): InvariantViolation | null {
  const { seq } = event;
  if (seq !== state.last + 1) {
    return {
      code: "SEQ_GAP",
      detail: `expected seq ${state.last + 1} after seq ${state.last}, found seq ${seq}`,
    };
  }
  if (event.sourceEventSeqs !== undefined) {
    for (const source of event.sourceEventSeqs) {
      if (source >= seq) {
        return {
          code: "BAD_SOURCE",
          detail: `sourceEventSeqs cites seq ${source}, which is not earlier than ${seq}`,
        };
      }
    }
  }
  const turn = turnViolation(state, event);
  if (turn !== null) return turn;
  if (event.type === "function_call") {
    const earlier = state.calls.get(event.callId);
    if (earlier !== undefined) {
      return {
        code: "DUPLICATE_CALL_ID",
        detail: `callId ${JSON.stringify(event.callId)} was already used by the function_call at seq ${earlier}`,
      };
    }
  } else if (event.type === "function_call_output") {
    const output = outputViolation(state, event);
    if (output !== null) return output;
  }
  return replaceViolation(state, event);
}

function turnViolation(state: InvariantState, event: SessionEvent): InvariantViolation | null {
  if (event.type === "turn/start") {
    if (state.turn === null) return null;
    return {
      code: "TURN_NESTING",
      detail: `turn/start while the turn started at seq ${state.turn} is still open`,
    };
  }
  if (event.type === "turn/end") {
    if (state.turn === null) return { code: "TURN_NESTING", detail: "turn/end with no open turn" };
    if (state.pending.size === 0) return null;
    const calls = [...state.pending].map((callId) => `${callId} (seq ${state.calls.get(callId)})`);
    return {
      code: "TURN_NESTING",
      detail: `turn/end while function calls have no output: ${calls.join(", ")}`,
    };
  }
  if (state.turn === null && turnScoped.has(event.type)) {
    return { code: "TURN_NESTING", detail: `${event.type} outside a turn (no open turn/start)` };
  }
  return null;
}

function outputViolation(
  state: InvariantState,
  event: Extract<SessionEvent, { type: "function_call_output" }>,
): InvariantViolation | null {
  const callId = JSON.stringify(event.callId);
  const callSeq = state.calls.get(event.callId);
  if (callSeq === undefined) {
    return {
      code: "ORPHAN_OUTPUT",
      detail: `output for callId ${callId}, which no earlier function_call has`,
    };
  }
  if (!state.pending.has(event.callId)) {
    return {
      code: "DUPLICATE_OUTPUT",
      detail: `callId ${callId} (seq ${callSeq}) already has an output`,
    };
  }
  if (!event.sourceEventSeqs?.includes(callSeq)) {
    return {
      code: "BAD_SOURCE",
      detail: `sourceEventSeqs must cite the function_call at seq ${callSeq}`,
    };
  }
  return null;
}

function replaceViolation(state: InvariantState, event: SessionEvent): InvariantViolation | null {
  const { replaces, surfaceOp } = event;
  if (replaces === undefined && surfaceOp === undefined) return null;
  if (!isSurfaceEvent(event) || surfaceOp !== "replace" || replaces === undefined) {
    return {
      code: "BAD_REPLACE",
      detail: 'replaces and surfaceOp:"replace" go together, on surface items only',
    };
  }
  const seen = new Set<number>();
  for (const target of replaces) {
    const why =
      target >= event.seq
        ? "not earlier"
        : seen.has(target)
          ? "listed twice"
          : state.visible.has(target)
            ? null
            : "not visible on the surface";
    if (why !== null)
      return { code: "BAD_REPLACE", detail: `replaces seq ${target}, which is ${why}` };
    seen.add(target);
  }
  return null;
}

/** Applies an event the state accepted. */
function advance(state: InvariantState, event: SessionEvent): void {
  state.last = event.seq;
  if (isSurfaceEvent(event)) {
    state.visible.add(event.seq);
    if (event.surfaceOp === "replace" && event.replaces !== undefined) {
      for (const target of event.replaces) state.visible.delete(target);
    }
  }
  switch (event.type) {
    case "turn/start":
      state.turn = event.seq;
      break;
    case "turn/end":
      state.turn = null;
      break;
    case "function_call":
      state.calls.set(event.callId, event.seq);
      state.pending.add(event.callId);
      break;
    case "function_call_output":
      state.pending.delete(event.callId);
      break;
  }
}

/** True for a value {@link invariantSnapshot} could have written (the index's own JSON). */
function isSnapshot(value: unknown): value is InvariantSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const snapshot = value as Partial<Record<keyof InvariantSnapshot, unknown>>;
  return (
    snapshot.v === 1 &&
    Number.isSafeInteger(snapshot.last) &&
    (snapshot.turn === null || Number.isSafeInteger(snapshot.turn)) &&
    Array.isArray(snapshot.calls) &&
    snapshot.calls.every(
      (pair) => Array.isArray(pair) && typeof pair[0] === "string" && Number.isSafeInteger(pair[1]),
    ) &&
    Array.isArray(snapshot.pending) &&
    snapshot.pending.every((callId) => typeof callId === "string") &&
    Array.isArray(snapshot.visible) &&
    snapshot.visible.every((seq) => Number.isSafeInteger(seq))
  );
}
