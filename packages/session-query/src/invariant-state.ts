/**
 * The part of a replayed `Session` that the log's invariants look at, small enough to keep in an
 * index between syncs: so appended bytes are checked exactly as a replay of the whole log would
 * check them, reading only the new bytes (issue #28). `invariant-state.test.ts` checks that it
 * refuses exactly what `Session` refuses, with the same code and seq, wherever a log is cut.
 */
import {
  EventLogCorruptError,
  type EventLogErrorCode,
  isSurfaceEvent,
  type LogLocation,
  type SessionEvent,
} from "@tapedeck/session";

/** The state kept between syncs (JSON). */
export interface InvariantSnapshot {
  /** Format of this object. */
  v: 1;
  /** seq of the last event (a fork without events: `parent.seq`). */
  last: number;
  /** seq of the open turn's `turn/start`, or `null` between turns. */
  turn: number | null;
  /** Every `function_call`'s callId with its seq, in order (a fork's prefix included). */
  calls: [string, number][];
  /** callIds of the calls without an output yet. */
  pending: string[];
  /** seqs visible on the surface now, ascending. */
  visible: number[];
}

/** Types that may only stand inside an open turn (invariant 3), as in `Session`. */
const turnScoped = new Set<string>([
  "model/request",
  "model/response",
  "assistant/chunk",
  "function_call",
  "function_call_output",
  "approval/request",
  "approval/decision",
]);

/** Checks events against the seven invariants from a kept state; see the module comment. */
export class InvariantState {
  private last: number;
  private turn: number | null;
  private readonly calls: Map<string, number>;
  private readonly pending: Set<string>;
  private readonly visible: Set<number>;

  private constructor(
    private readonly sessionId: string,
    snapshot: InvariantSnapshot,
  ) {
    this.last = snapshot.last;
    this.turn = snapshot.turn;
    this.calls = new Map(snapshot.calls);
    this.pending = new Set(snapshot.pending);
    this.visible = new Set(snapshot.visible);
  }

  /** The state before a log's first event (`last`: a fork's `parent.seq`, else 0). */
  static empty(sessionId: string, last = 0): InvariantState {
    return new InvariantState(sessionId, {
      v: 1,
      last,
      turn: null,
      calls: [],
      pending: [],
      visible: [],
    });
  }

  /** The state a {@link snapshot} kept; `null` when it is not one (an older index). */
  static restore(sessionId: string, snapshot: unknown): InvariantState | null {
    if (!isSnapshot(snapshot)) return null;
    return new InvariantState(sessionId, snapshot);
  }

  /** seq of the last event checked. */
  get lastSeq(): number {
    return this.last;
  }

  /** What to keep until the next sync. */
  snapshot(): InvariantSnapshot {
    return {
      v: 1,
      last: this.last,
      turn: this.turn,
      calls: [...this.calls],
      pending: [...this.pending],
      visible: [...this.visible].sort((a, b) => a - b),
    };
  }

  /**
   * Checks one event and applies it.
   *
   * @throws EventLogCorruptError with the code `Session.append` would throw; the state is then
   * unchanged.
   */
  append(event: SessionEvent, location: LogLocation = {}): void {
    this.check(event, location);
    this.apply(event);
  }

  private fail(
    code: EventLogErrorCode,
    detail: string,
    event: SessionEvent,
    location: LogLocation,
  ): never {
    throw new EventLogCorruptError(code, detail, {
      ...location,
      seq: event.seq,
      sessionId: this.sessionId,
    });
  }

  private check(event: SessionEvent, location: LogLocation): void {
    const { seq } = event;
    if (seq !== this.last + 1) {
      this.fail(
        "SEQ_GAP",
        `expected seq ${this.last + 1} after seq ${this.last}, found seq ${seq}`,
        event,
        location,
      );
    }
    for (const source of event.sourceEventSeqs ?? []) {
      if (source >= seq) {
        this.fail(
          "BAD_SOURCE",
          `sourceEventSeqs cites seq ${source}, which is not earlier than ${seq}`,
          event,
          location,
        );
      }
    }
    this.checkTurn(event, location);
    if (event.type === "function_call" && this.calls.has(event.callId)) {
      this.fail(
        "DUPLICATE_CALL_ID",
        `callId ${JSON.stringify(event.callId)} was already used by the function_call at seq ${this.calls.get(event.callId)}`,
        event,
        location,
      );
    }
    if (event.type === "function_call_output") this.checkOutput(event, location);
    this.checkReplace(event, location);
  }

  private checkOutput(
    event: Extract<SessionEvent, { type: "function_call_output" }>,
    location: LogLocation,
  ): void {
    const callSeq = this.calls.get(event.callId);
    if (callSeq === undefined) {
      this.fail(
        "ORPHAN_OUTPUT",
        `output for callId ${JSON.stringify(event.callId)}, which no earlier function_call has`,
        event,
        location,
      );
    }
    if (!this.pending.has(event.callId)) {
      this.fail(
        "DUPLICATE_OUTPUT",
        `callId ${JSON.stringify(event.callId)} (seq ${callSeq}) already has an output`,
        event,
        location,
      );
    }
    if (!event.sourceEventSeqs?.includes(callSeq)) {
      this.fail(
        "BAD_SOURCE",
        `sourceEventSeqs must cite the function_call at seq ${callSeq}`,
        event,
        location,
      );
    }
  }

  private checkTurn(event: SessionEvent, location: LogLocation): void {
    if (event.type === "turn/start") {
      if (this.turn !== null) {
        this.fail(
          "TURN_NESTING",
          `turn/start while the turn started at seq ${this.turn} is still open`,
          event,
          location,
        );
      }
    } else if (event.type === "turn/end") {
      if (this.turn === null)
        this.fail("TURN_NESTING", "turn/end with no open turn", event, location);
      if (this.pending.size > 0) {
        const calls = [...this.pending].map(
          (callId) => `${callId} (seq ${this.calls.get(callId)})`,
        );
        this.fail(
          "TURN_NESTING",
          `turn/end while function calls have no output: ${calls.join(", ")}`,
          event,
          location,
        );
      }
    } else if (turnScoped.has(event.type) && this.turn === null) {
      this.fail(
        "TURN_NESTING",
        `${event.type} outside a turn (no open turn/start)`,
        event,
        location,
      );
    }
  }

  private checkReplace(event: SessionEvent, location: LogLocation): void {
    const { replaces, surfaceOp } = event;
    if (replaces === undefined && surfaceOp === undefined) return;
    if (!isSurfaceEvent(event) || surfaceOp !== "replace" || replaces === undefined) {
      this.fail(
        "BAD_REPLACE",
        'replaces and surfaceOp:"replace" go together, on surface items only',
        event,
        location,
      );
    }
    const seen = new Set<number>();
    for (const target of replaces) {
      if (target >= event.seq || !this.visible.has(target) || seen.has(target)) {
        this.fail(
          "BAD_REPLACE",
          `replaces seq ${target}, which is ${target >= event.seq ? "not earlier" : seen.has(target) ? "listed twice" : "not visible on the surface"}`,
          event,
          location,
        );
      }
      seen.add(target);
    }
  }

  private apply(event: SessionEvent): void {
    this.last = event.seq;
    if (isSurfaceEvent(event)) {
      this.visible.add(event.seq);
      if (event.surfaceOp === "replace") {
        for (const target of event.replaces ?? []) this.visible.delete(target);
      }
    }
    switch (event.type) {
      case "turn/start":
        this.turn = event.seq;
        break;
      case "turn/end":
        this.turn = null;
        break;
      case "function_call":
        this.calls.set(event.callId, event.seq);
        this.pending.add(event.callId);
        break;
      case "function_call_output":
        this.pending.delete(event.callId);
        break;
    }
  }
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => Number.isSafeInteger(item));
}

/** True for a value {@link InvariantState.snapshot} could have written (the index's own JSON). */
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
    isNumberArray(snapshot.visible)
  );
}
