/**
 * A line of the last, unfinished turn whose blob a crash cut short. A writer stores a blob raw and
 * fsyncs it only before the log's next fsync (a turn's end, an approval request, `sync`, `close`:
 * architecture/storage.md), so after a power cut a line written mid-turn may have reached the disk
 * while its blob did not. No fsync of the log came after it, so nothing from it on was ever
 * acknowledged: replay treats it like a torn tail (repair moves it, and the rest of the turn,
 * aside). Anywhere else (a turn that ended, an approval asked after it) a missing or damaged blob
 * stays damage.
 */
import { EventLogCorruptError } from "@tapedeck/session";
import type { LogHandle } from "./cold-log";
import { isTornTail, type LogLine, scanLines, type TornTail } from "./line-reader";

/** Event types written only with (or before) a fsync of the log: the blob was durable by then. */
const durablePoints = new Set(["turn/end", "approval/request", "turn/start"]);

/**
 * The torn tail to report for `error`, thrown reading `line` of a log of `size` bytes: from that
 * line to the end, when `error` is a missing or damaged blob (`BLOB_MISSING`, `BLOB_CORRUPT`),
 * a turn is open at the line (`turnOpen`: the session replayed up to it has one), and no later
 * line ends it, asks for an approval or starts another (each one a fsync of the log, after the
 * turn's blobs). Otherwise `undefined`: the error is damage.
 */
export async function unfinishedBlobWrite(
  error: unknown,
  turnOpen: boolean,
  handle: LogHandle,
  line: LogLine,
  size: number,
): Promise<TornTail | undefined> {
  if (!mayBeUnfinished(error, turnOpen)) return undefined;
  const rest = scanLines(handle, { start: line.end, line: line.line + 1, limit: size });
  for await (const batch of rest) {
    if (isTornTail(batch)) break;
    for (const later of batch) if (!unfinishedAfter(later.text)) return undefined;
  }
  return { torn: true, line: line.line, offset: line.offset, bytes: size - line.offset };
}

/** {@link unfinishedBlobWrite} over a log's bytes in memory (the synchronous replay's). */
export function unfinishedBlobWriteSync(
  error: unknown,
  turnOpen: boolean,
  bytes: Buffer,
  line: LogLine,
): TornTail | undefined {
  if (!mayBeUnfinished(error, turnOpen)) return undefined;
  for (let start = line.end; ; ) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) break; // a torn tail after it goes with it
    if (!unfinishedAfter(bytes.toString("utf8", start, newline))) return undefined;
    start = newline + 1;
  }
  return { torn: true, line: line.line, offset: line.offset, bytes: bytes.length - line.offset };
}

/** A missing or damaged blob met inside an open turn. */
function mayBeUnfinished(error: unknown, turnOpen: boolean): error is EventLogCorruptError {
  return (
    turnOpen &&
    EventLogCorruptError.isInstance(error) &&
    (error.code === "BLOB_MISSING" || error.code === "BLOB_CORRUPT")
  );
}

/** Whether a later line leaves the turn unfinished (a whole event, not a point the log was fsynced). */
function unfinishedAfter(text: string): boolean {
  let type: unknown;
  try {
    type = (JSON.parse(text) as { type?: unknown } | null)?.type;
  } catch {
    return false; // a damaged line after it: damage, not an unfinished write
  }
  return typeof type === "string" && !durablePoints.has(type);
}

/** What a strict read throws for an {@link unfinishedBlobWrite}: a `TORN_TAIL`, repairable. */
export function unfinishedBlobError(
  tail: TornTail,
  cause: EventLogCorruptError,
  sessionId: string,
): EventLogCorruptError {
  return new EventLogCorruptError(
    "TORN_TAIL",
    `${cause.detail}, in the last turn, which never ended: a write a crash cut short (run repair to move the ${tail.bytes} bytes from this line on aside)`,
    {
      line: tail.line,
      offset: tail.offset,
      sessionId,
      cause,
      ...(cause.seq === undefined ? {} : { seq: cause.seq }),
    },
  );
}
