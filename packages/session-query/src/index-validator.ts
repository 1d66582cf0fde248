import {
  EventLogCorruptError,
  emptyInvariantState,
  type InvariantSnapshot,
  type InvariantState,
  invariantError,
  invariantSnapshot,
  isInvariantViolation,
  type LogLocation,
  restoreInvariantState,
  type SessionEvent,
  type SessionHeader,
  stepInvariants,
} from "@tapedeck/session";
import type { Damage, SessionAggregate } from "./summary";

/**
 * Checks events while they are indexed, recording the first damage: every invariant, as a replay
 * of the whole log checks it (the same `stepInvariants` `Session` uses, issue #28), from an
 * {@link InvariantState} the index keeps between syncs
 * (appended bytes) or builds (a log read from its first event; a fork from its parent's prefix).
 * Without a state (an index older than the kept state, a fork whose parent cannot be read) only
 * seq continuity is checked here, and the rest when the session is read.
 */
export class IndexValidator {
  private state: InvariantState | null;
  private lastSeq: number;
  damage: Damage | null;

  constructor(
    private readonly header: SessionHeader,
    options: { lastSeq: number; state: InvariantState | null; damage: Damage | null },
  ) {
    this.lastSeq = options.lastSeq;
    this.damage = options.damage;
    this.state = options.damage === null ? options.state : null;
  }

  /**
   * The validator of a log read from its first event: a non-fork log starts from nothing, a fork
   * from `prefix` (its parent's state at `parent.seq`, see {@link forkPrefixState}); a prefix that
   * is damage marks the fork damaged before its first event.
   */
  static fromStart(
    header: SessionHeader,
    prefix?: InvariantState | EventLogCorruptError | null,
  ): IndexValidator {
    const lastSeq = header.parent?.seq ?? 0;
    if (EventLogCorruptError.isInstance(prefix)) {
      return new IndexValidator(header, {
        lastSeq,
        state: null,
        damage: { code: prefix.code, message: prefix.message },
      });
    }
    const state =
      header.parent === undefined
        ? emptyInvariantState()
        : prefix === undefined || prefix === null
          ? null
          : copyState(prefix);
    return new IndexValidator(header, { lastSeq, state, damage: null });
  }

  /**
   * The validator of a session the index holds no events of: from nothing, or for a fork from its
   * parent's state at `parent.seq`, replayed from `logs` once (see {@link forkPrefixState}).
   */
  static async forNewSession(header: SessionHeader, logs: PrefixLogs): Promise<IndexValidator> {
    if (header.parent === undefined) return IndexValidator.fromStart(header);
    const prefix = await forkPrefixState(
      header,
      (sessionId) => logs.entry(sessionId)?.header,
      (sessionId) => logs.read(sessionId, { tornTail: "stop" }),
    );
    return IndexValidator.fromStart(header, prefix);
  }

  /**
   * The validator that goes on where an index left a session: after its aggregate's last seq,
   * from the state kept with it (`snapshot`), keeping the stored damage — except a torn tail,
   * checked again (the writer may have finished the line since).
   */
  static resume(
    header: SessionHeader,
    aggregate: SessionAggregate,
    stored: { damage_code: string | null; damage_message: string | null },
    snapshot: unknown,
  ): IndexValidator {
    const damage =
      stored.damage_code === null || stored.damage_code === "TORN_TAIL"
        ? null
        : { code: stored.damage_code, message: stored.damage_message ?? "" };
    const state = restoreInvariantState(snapshot);
    return new IndexValidator(header, {
      lastSeq: aggregate.lastSeq,
      state: state !== null && state.last === aggregate.lastSeq ? state : null,
      damage,
    });
  }

  /** True when every invariant is checked (not seq continuity alone). */
  get checksAll(): boolean {
    return this.state !== null || this.damage !== null;
  }

  /**
   * The state to keep for the next sync (after the last event checked without damage; a torn
   * tail keeps it, since the next sync goes on after the last whole line); `null` once an
   * invariant is broken, or without a state.
   */
  snapshot(): InvariantSnapshot | null {
    return this.state === null ? null : invariantSnapshot(this.state);
  }

  /** Checks one event (in file order). */
  check(event: SessionEvent, location: LogLocation): void {
    const expected = this.lastSeq + 1;
    this.lastSeq = event.seq;
    if (this.damage !== null) return;
    if (this.state !== null) {
      const next = stepInvariants(this.state, event);
      if (isInvariantViolation(next)) {
        const error = invariantError(next, event, this.header.sessionId, location);
        this.damage = { code: error.code, message: error.message };
        this.state = null;
      }
      return;
    }
    if (event.seq !== expected) {
      const error = new EventLogCorruptError(
        "SEQ_GAP",
        `expected seq ${expected} after seq ${expected - 1}, found seq ${event.seq}`,
        { ...location, seq: event.seq, sessionId: this.header.sessionId },
      );
      this.damage = { code: error.code, message: error.message };
    }
  }
}

/** The logs a fork's prefix is read from (a session store's `entry` and `read`). */
export interface PrefixLogs {
  entry(sessionId: string): { header?: SessionHeader | undefined } | null | undefined;
  read(
    sessionId: string,
    options: { tornTail: "stop" },
  ): AsyncIterable<{ event: SessionEvent; line?: number; offset?: number }>;
}

/** A log's own events with where they sit, in file order (what a store's `read` yields). */
export type OwnEvents = (
  sessionId: string,
) => AsyncIterable<{ event: SessionEvent; line?: number; offset?: number }>;

/**
 * The invariant state of a fork's parent at `parent.seq`: the ancestors' own events up to the
 * branch points, replayed through an {@link InvariantState}. Returns the damage when the prefix
 * breaks an invariant (a replay of the fork refuses it too); `null` when an ancestor cannot be
 * read (no state: the fork's invariants are then checked when it is read). Costs one read of the
 * prefix, once, when the fork is indexed from its first event.
 */
export async function forkPrefixState(
  header: SessionHeader,
  headerOf: (sessionId: string) => SessionHeader | undefined,
  ownEvents: OwnEvents,
  depth = 0,
): Promise<InvariantState | EventLogCorruptError | null> {
  const parent = header.parent;
  if (parent === undefined) return emptyInvariantState();
  const parentHeader = headerOf(parent.sessionId);
  if (parentHeader === undefined || depth > 1000) return null;
  const state = await forkPrefixState(parentHeader, headerOf, ownEvents, depth + 1);
  if (state === null || EventLogCorruptError.isInstance(state)) return state;
  try {
    for await (const read of ownEvents(parent.sessionId)) {
      if (read.event.seq > parent.seq) break;
      const next = stepInvariants(state, read.event);
      if (isInvariantViolation(next)) {
        const location: LogLocation = {};
        if (read.line !== undefined) location.line = read.line;
        if (read.offset !== undefined) location.offset = read.offset;
        return invariantError(next, read.event, parent.sessionId, location);
      }
    }
  } catch (error) {
    if (EventLogCorruptError.isInstance(error)) return error;
    return null;
  }
  return state;
}

/** A copy of `state` the copy's owner may advance (a fork's prefix state may be shared). */
function copyState(state: InvariantState): InvariantState {
  return restoreInvariantState(invariantSnapshot(state)) as InvariantState;
}
