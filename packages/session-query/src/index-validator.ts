import {
  EventLogCorruptError,
  type LogLocation,
  type SessionEvent,
  type SessionHeader,
} from "@tapedeck/session";
import { type InvariantSnapshot, InvariantState } from "./invariant-state";
import type { Damage, SessionAggregate } from "./summary";

/**
 * Checks events while they are indexed, recording the first damage: every invariant, as a replay
 * of the whole log would check it, from an {@link InvariantState} the index keeps between syncs
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
        ? InvariantState.empty(header.sessionId)
        : prefix === undefined || prefix === null
          ? null
          : InvariantState.restore(header.sessionId, prefix.snapshot());
    return new IndexValidator(header, { lastSeq, state, damage: null });
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
    const state = InvariantState.restore(header.sessionId, snapshot);
    return new IndexValidator(header, {
      lastSeq: aggregate.lastSeq,
      state: state !== null && state.lastSeq === aggregate.lastSeq ? state : null,
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
    return this.state === null ? null : this.state.snapshot();
  }

  /** Checks one event (in file order). */
  check(event: SessionEvent, location: LogLocation): void {
    const expected = this.lastSeq + 1;
    this.lastSeq = event.seq;
    if (this.damage !== null) return;
    if (this.state !== null) {
      try {
        this.state.append(event, location);
      } catch (error) {
        if (!EventLogCorruptError.isInstance(error)) throw error;
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
  if (parent === undefined) return InvariantState.empty(header.sessionId);
  const parentHeader = headerOf(parent.sessionId);
  if (parentHeader === undefined || depth > 1000) return null;
  const base = await forkPrefixState(parentHeader, headerOf, ownEvents, depth + 1);
  if (base === null || EventLogCorruptError.isInstance(base)) return base;
  const state = InvariantState.restore(parent.sessionId, base.snapshot()) as InvariantState;
  try {
    for await (const read of ownEvents(parent.sessionId)) {
      if (read.event.seq > parent.seq) break;
      const location: LogLocation = {};
      if (read.line !== undefined) location.line = read.line;
      if (read.offset !== undefined) location.offset = read.offset;
      state.append(read.event, location);
    }
  } catch (error) {
    if (EventLogCorruptError.isInstance(error)) return error;
    return null;
  }
  return state;
}
