import {
  EventLogCorruptError,
  type LogLocation,
  Session,
  type SessionEvent,
  type SessionHeader,
} from "@tapedeck/session";
import type { Damage, SessionAggregate } from "./summary";

/**
 * Checks events while they are indexed, recording the first damage. Reading a non-fork log from
 * its first event, a `Session` replays it, so every invariant is checked at no extra I/O. Appended
 * bytes and forks (whose state depends on the rest of the file, or on the parent) get the seq
 * continuity check only; the full check happens when the session is read.
 */
export class IndexValidator {
  private session: Session | null;
  private lastSeq: number;
  damage: Damage | null;

  constructor(
    private readonly header: SessionHeader,
    options: { lastSeq: number; fromStart: boolean; damage: Damage | null },
  ) {
    this.lastSeq = options.lastSeq;
    this.damage = options.damage;
    this.session =
      options.fromStart && header.parent === undefined && options.damage === null
        ? Session.create(header.sessionId, [], header)
        : null;
  }

  /**
   * The validator that goes on where an index left a session: after its aggregate's last seq,
   * keeping the stored damage — except a torn tail, checked again (the writer may have finished
   * the line since).
   */
  static resume(
    header: SessionHeader,
    aggregate: SessionAggregate,
    stored: { damage_code: string | null; damage_message: string | null },
  ): IndexValidator {
    return new IndexValidator(header, {
      lastSeq: aggregate.lastSeq,
      fromStart: aggregate.eventCount === 0,
      damage:
        stored.damage_code === null || stored.damage_code === "TORN_TAIL"
          ? null
          : { code: stored.damage_code, message: stored.damage_message ?? "" },
    });
  }

  /** Checks one event (in file order). */
  check(event: SessionEvent, location: LogLocation): void {
    const expected = this.lastSeq + 1;
    this.lastSeq = event.seq;
    if (this.damage !== null) return;
    if (this.session !== null) {
      try {
        this.session.append(event, location);
      } catch (error) {
        if (!EventLogCorruptError.isInstance(error)) throw error;
        this.damage = { code: error.code, message: error.message };
        this.session = null;
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
