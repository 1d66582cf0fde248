/**
 * A line of the log's last stretch whose blob a crash cut short. A writer stores a blob raw and
 * fsyncs it beside the log at the next acknowledged point (a turn's end, an approval request,
 * every append with `"every-event"`, `sync`, `close`: architecture/storage.md), and acknowledges
 * that point only when both fsyncs ended. So after a power cut a line may be on disk while its
 * blob is not, but only when no acknowledged point came after the line: every later one waited
 * for the blob. Replay treats such a line like a torn tail (repair moves it, and every line after
 * it, aside). A line after a sync point (`turn/end`, `approval/request`) proves that point's
 * fsyncs ended, blobs included: a blob missing or damaged before it is damage, as is one in a
 * line before the log's first `turn/start` (written by `create`, whose blobs are durable first).
 */
import { EventLogCorruptError } from "@tapedeck/session";
import type { LogHandle } from "./cold-log";
import { BlobReadError } from "./errors";
import { isTornTail, type LogLine, scanLines, type TornTail } from "./line-reader";

/** Event types whose append is acknowledged only once the log and its blobs were fsynced. */
const syncPoints = new Set(["turn/end", "approval/request"]);

/**
 * The torn tail to report for `error`, thrown reading `line` of a log of `size` bytes: from that
 * line to the end, when `error` is a missing or damaged blob (`BLOB_MISSING`, `BLOB_CORRUPT`),
 * a turn has started at or before the line (`turnStarted`), and no later line (whole or torn)
 * follows a sync point after it. Otherwise `undefined`: the error is damage.
 */
export async function unfinishedBlobWrite(
  error: unknown,
  turnStarted: boolean,
  handle: LogHandle,
  line: LogLine,
  size: number,
): Promise<TornTail | undefined> {
  if (!mayBeUnfinished(error, turnStarted)) return undefined;
  const later = new LaterLines();
  const rest = scanLines(handle, { start: line.end, line: line.line + 1, limit: size });
  for await (const batch of rest) {
    if (isTornTail(batch)) {
      if (!later.torn()) return undefined;
      break;
    }
    for (const { text } of batch) if (!later.whole(text)) return undefined;
  }
  return { torn: true, line: line.line, offset: line.offset, bytes: size - line.offset };
}

/** {@link unfinishedBlobWrite} over a log's bytes in memory (the synchronous replay's). */
export function unfinishedBlobWriteSync(
  error: unknown,
  turnStarted: boolean,
  bytes: Buffer,
  line: LogLine,
): TornTail | undefined {
  if (!mayBeUnfinished(error, turnStarted)) return undefined;
  const later = new LaterLines();
  for (let start = line.end; start < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) {
      if (!later.torn()) return undefined;
      break;
    }
    if (!later.whole(bytes.toString("utf8", start, newline))) return undefined;
    start = newline + 1;
  }
  return { torn: true, line: line.line, offset: line.offset, bytes: bytes.length - line.offset };
}

/**
 * The lines after the one whose blob failed, one at a time: each answer is whether the blob may
 * still be an unfinished write.
 */
class LaterLines {
  /** A sync point was seen: any line after it proves its fsyncs ended. */
  private synced = false;

  /** A whole later line: not after a sync point, and an event (a damaged line is damage). */
  whole(text: string): boolean {
    if (this.synced) return false;
    let type: unknown;
    try {
      type = (JSON.parse(text) as { type?: unknown } | null)?.type;
    } catch {
      return false;
    }
    if (typeof type !== "string") return false;
    this.synced = syncPoints.has(type);
    return true;
  }

  /** A torn last line: written after a sync point only once that point was acknowledged. */
  torn(): boolean {
    return !this.synced;
  }
}

/**
 * A missing or damaged blob met after a turn started, and not in a compressed form (a `.zst`, a
 * delta or its base: `compact` made those durable before a log named them, so that is damage).
 */
function mayBeUnfinished(error: unknown, turnStarted: boolean): error is EventLogCorruptError {
  return (
    turnStarted &&
    EventLogCorruptError.isInstance(error) &&
    (error.code === "BLOB_MISSING" || error.code === "BLOB_CORRUPT") &&
    !(BlobReadError.isInstance(error.cause) && error.cause.compressed)
  );
}

/** What a strict read throws for an {@link unfinishedBlobWrite}: a `TORN_TAIL`, repairable. */
export function unfinishedBlobError(
  tail: TornTail,
  cause: EventLogCorruptError,
  sessionId: string,
): EventLogCorruptError {
  return new EventLogCorruptError(
    "TORN_TAIL",
    `${cause.detail}, in the log's last lines, which no acknowledged write followed: a write a crash cut short (run repair to move the ${tail.bytes} bytes from this line on aside)`,
    {
      line: tail.line,
      offset: tail.offset,
      sessionId,
      cause,
      ...(cause.seq === undefined ? {} : { seq: cause.seq }),
    },
  );
}
