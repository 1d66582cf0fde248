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

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point.
const nonAscii = /[^\u0000-\u007f]/;

/** UTF-8 byte length of a string, without allocating (lone surrogates count as U+FFFD: 3). */
export function utf8Length(text: string): number {
  if (!nonAscii.test(text)) return text.length;
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        index += 1;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Replays a whole log held in memory (a file's text, an upload, a fixture), with the same checks
 * as the store: every line parsed and validated, every invariant applied, positions in errors as
 * 1-based lines and byte offsets. A last line without "\n" is a `TORN_TAIL`.
 *
 * @throws EventLogCorruptError on the first problem; nothing is returned for a damaged log.
 */
export function replayLogText(text: string, options: ReplayLogTextOptions = {}): Session {
  // Byte offsets are only needed in errors, so they are computed then, not per line.
  const locate = (line: number, start: number) => ({
    line,
    offset: utf8Length(text.slice(0, start)),
  });
  const idFields = options.sessionId === undefined ? {} : { sessionId: options.sessionId };
  let line = 0;
  let session: Session | undefined;
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    line += 1;
    if (newline === -1) {
      throw new EventLogCorruptError(
        "TORN_TAIL",
        `the last line has no newline: ${utf8Length(text.slice(start))} bytes of an unfinished write`,
        { ...locate(line, start), ...idFields },
      );
    }
    const content = text.slice(start, newline);
    try {
      if (session === undefined) {
        const header = parseHeaderLine(content);
        session = Session.create(options.sessionId ?? header.sessionId, [], header);
        appendParentPrefix(session, options.parentEvents);
      } else {
        session.append(parseEventLine(content), { line });
      }
    } catch (error) {
      if (!EventLogCorruptError.isInstance(error) || error.offset !== undefined) throw error;
      const sessionId = session?.sessionId ?? options.sessionId;
      throw error.withLocation({
        ...locate(line, start),
        ...(sessionId === undefined ? {} : { sessionId }),
      });
    }
    start = newline + 1;
  }
  if (session === undefined) {
    throw new EventLogCorruptError("BAD_HEADER", "the log is empty (no header line)", {
      line: 1,
      offset: 0,
      ...idFields,
    });
  }
  return session;
}
