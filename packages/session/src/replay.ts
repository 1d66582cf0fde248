import { EventLogCorruptError } from "./errors";
import type { SessionEvent, SessionHeader } from "./schema";
import { Session } from "./session";

/** Options of {@link replayEvents}. */
export interface ReplayOptions {
  /**
   * For a fork: the parent's events from seq 1 to `header.parent.seq` (already replay-validated
   * as the parent's own log). Required when the header has a `parent`.
   */
  parentEvents?: Iterable<SessionEvent>;
}

/**
 * Builds a Session from a whole log: create, then append every event in order. The first failed
 * invariant rejects the whole log. Line numbers in errors assume one event per line after the
 * header (event `i` on line `i + 2`).
 *
 * @throws EventLogCorruptError on any violation, including a fork whose parent prefix does not end
 * at `header.parent.seq` (`BAD_HEADER`).
 */
export function replayEvents(
  header: SessionHeader,
  events: Iterable<SessionEvent>,
  options: ReplayOptions = {},
): Session {
  const session = Session.create(header.sessionId, [], header);
  appendParentPrefix(session, options.parentEvents);
  let line = 2;
  for (const event of events) {
    session.append(event, { line });
    line += 1;
  }
  return session;
}

/**
 * Appends a fork's parent prefix to a fresh child session and checks that it ends exactly at the
 * fork point. A non-fork session accepts no prefix.
 */
export function appendParentPrefix(
  session: Session,
  parentEvents: Iterable<SessionEvent> | undefined,
): void {
  const parent = session.header.parent;
  if (parent === undefined) {
    if (parentEvents !== undefined && !isEmpty(parentEvents)) {
      throw new EventLogCorruptError(
        "BAD_HEADER",
        "parent events were given for a session that is not a fork",
        {
          line: 1,
          offset: 0,
          sessionId: session.sessionId,
        },
      );
    }
    return;
  }
  if (parentEvents === undefined) {
    throw new EventLogCorruptError(
      "BAD_HEADER",
      `session is a fork of ${parent.sessionId} at seq ${parent.seq}; its parent's events are needed to read it`,
      { line: 1, offset: 0, sessionId: session.sessionId },
    );
  }
  for (const event of parentEvents) {
    if (event.seq > parent.seq) break;
    try {
      session.append(event);
    } catch (error) {
      if (EventLogCorruptError.isInstance(error)) {
        throw new EventLogCorruptError(
          error.code,
          `in parent ${parent.sessionId}: ${error.detail}`,
          {
            line: 1,
            offset: 0,
            sessionId: session.sessionId,
            cause: error,
          },
        );
      }
      throw error;
    }
  }
  if (session.lastSeq !== parent.seq) {
    throw new EventLogCorruptError(
      "BAD_HEADER",
      `fork point is seq ${parent.seq} of ${parent.sessionId}, but that session ends at seq ${session.lastSeq}`,
      { line: 1, offset: 0, sessionId: session.sessionId },
    );
  }
}

function isEmpty(events: Iterable<SessionEvent>): boolean {
  for (const _ of events) return false;
  return true;
}
