import type { EventLogCorruptError, SessionEvent } from "@tapedeck/session";
import { blobsBesideLog } from "./blob-store";
import { asLogOffset } from "./catalog";
import { InvalidOffsetError } from "./errors";
import { byteBefore, isTornTail, linesBefore, scanLines } from "./line-reader";
import { openLog, parseEventOf, readHeaderOf, tornTailError } from "./log-file";
import type { ReadEvent } from "./session-store";
import { unfinishedBlobError, unfinishedBlobWrite } from "./unfinished-blob-write";

/**
 * The events of one log with their positions, for `SessionStore.read`: validates the header,
 * then streams the lines from `fromOffset` (a line start after the header) in chunks,
 * schema-validating each. Line numbers after an offset come from `fromLine` or from counting the
 * newlines before it.
 */
export async function* readEvents(
  path: string,
  sessionId: string,
  options: {
    fromOffset: number | undefined;
    fromLine: number | undefined;
    stopAtTornTail: boolean;
  },
): AsyncGenerator<ReadEvent> {
  const { fromOffset, fromLine } = options;
  const handle = await openLog(path, sessionId);
  const blobs = blobsBesideLog(path);
  try {
    const { header, end: headerEnd, size } = await readHeaderOf(handle, sessionId);
    const forked = header.parent !== undefined;
    let start = headerEnd;
    let line = 2;
    if (fromOffset !== undefined && fromOffset !== 0 && fromOffset !== headerEnd) {
      const notALineStart = () =>
        new InvalidOffsetError(
          `byte ${fromOffset} is not the start of an event line of session ${sessionId} (the log has ${size} bytes)`,
          { sessionId },
        );
      if (fromOffset < headerEnd || fromOffset > size) throw notALineStart();
      if (fromLine !== undefined) {
        if ((await byteBefore(handle, fromOffset)) !== 0x0a) throw notALineStart();
        line = fromLine;
      } else {
        // One pass for the count and the check (a cold log is decompressed once for both).
        const before = await linesBefore(handle, fromOffset);
        if (before.lastByte !== 0x0a) throw notALineStart();
        line = before.newlines + 1;
      }
      start = fromOffset;
    }
    // Whether a turn has started by the line read, for the unfinished-write blob rule: known
    // only reading a log's own lines from its first (a fork's prefix is its parent's).
    let turnStarted: boolean | undefined = start === headerEnd && !forked ? false : undefined;
    for await (const batch of scanLines(handle, { start, line, limit: size })) {
      if (isTornTail(batch)) {
        if (options.stopAtTornTail) return;
        throw tornTailError(batch, sessionId);
      }
      for (const entry of batch) {
        let event: SessionEvent;
        try {
          event = parseEventOf(entry, sessionId, blobs);
        } catch (error) {
          const unfinished = await unfinishedBlobWrite(
            error,
            turnStarted === true,
            handle,
            entry,
            size,
          );
          if (unfinished === undefined) throw error;
          if (options.stopAtTornTail) return;
          throw unfinishedBlobError(unfinished, error as EventLogCorruptError, sessionId);
        }
        if (turnStarted === false && event.type === "turn/start") turnStarted = true;
        yield {
          event,
          line: entry.line,
          offset: asLogOffset(entry.offset),
          end: asLogOffset(entry.end),
        };
      }
    }
  } finally {
    await handle.close();
  }
}
