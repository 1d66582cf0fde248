import { EventLogCorruptError } from "./errors";
import { parseEventLine, parseHeaderLine } from "./parse-line";
import { appendParentPrefix } from "./replay";
import type { SessionEvent } from "./schema";
import { Session } from "./session";

/** Options of {@link replayLogText}. */
export interface ReplayLogTextOptions {
  /** The id the log must belong to (its file name); default: the header's. */
  sessionId?: string;
  /** For a fork: the parent's events up to the fork point. */
  parentEvents?: Iterable<SessionEvent>;
}

const encoder = new TextEncoder();

/**
 * Replays a whole log held in memory (a file's text, an upload, a fixture), with the same checks
 * as the store: every line parsed and validated, every invariant applied, positions in errors as
 * 1-based lines and byte offsets. A last line without "\n" is a `TORN_TAIL`.
 *
 * @throws EventLogCorruptError on the first problem; nothing is returned for a damaged log.
 */
export function replayLogText(text: string, options: ReplayLogTextOptions = {}): Session {
  let offset = 0;
  let line = 0;
  let session: Session | undefined;
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    line += 1;
    if (newline === -1) {
      throw new EventLogCorruptError(
        "TORN_TAIL",
        `the last line has no newline: ${encoder.encode(text.slice(start)).length} bytes of an unfinished write`,
        {
          line,
          offset,
          ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
        },
      );
    }
    const content = text.slice(start, newline);
    const location = { line, offset };
    if (session === undefined) {
      const header = parseHeaderLine(content, location);
      session = Session.create(options.sessionId ?? header.sessionId, [], header);
      appendParentPrefix(session, options.parentEvents);
    } else {
      let event: SessionEvent;
      try {
        event = parseEventLine(content, location);
      } catch (error) {
        throw EventLogCorruptError.isInstance(error)
          ? error.withLocation({ sessionId: session.sessionId })
          : error;
      }
      session.append(event, location);
    }
    offset += encoder.encode(content).length + 1;
    start = newline + 1;
  }
  if (session === undefined) {
    throw new EventLogCorruptError("BAD_HEADER", "the log is empty (no header line)", {
      line: 1,
      offset: 0,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    });
  }
  return session;
}
