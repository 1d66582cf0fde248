/**
 * Reading the lines of index rows back from their logs, for a page of search hits. The hits of
 * a newest-first page cluster in a few sessions, often a few lines apart, so the lines of one
 * session that lie close together are read with one `pread` of the span that covers them rather
 * than one each: a page of 20 hits costs a few system calls, not 20 reads, and reads little more
 * than its lines.
 */
import type { LogReader } from "@tapedeck/session-store";

/**
 * An event row as a search selects it (`EVENT_ROW_COLUMNS` in `search-hits.ts`): its id, its
 * session's row id, its seq, the byte offset and length of its line in the log, the index's
 * generation (`hit-cache.ts`) and, ordered by relevance, its rank. An array, not
 * an object per row: a page is read once, field by field.
 */
export type EventRow = [
  id: number,
  session: number,
  seq: number,
  offset: number,
  length: number,
  generation: number,
  rank?: number,
];

/** Where {@link EventRow}'s fields are. */
export const ROW_ID = 0;
export const ROW_SESSION = 1;
export const ROW_SEQ = 2;
export const ROW_OFFSET = 3;
export const ROW_LENGTH = 4;
export const ROW_GENERATION = 5;
export const ROW_RANK = 6;

/**
 * Largest gap between two lines of a session that one read spans. Lines closer than this are read
 * together (the hits of one turn); farther apart, each group is read on its own: a page's hits
 * spread over a long log must not read the whole log between them (20 hits of ≈ 700 bytes once
 * cost ≈ 400 KB of reading when one span covered each session's hits).
 */
export const MAX_GAP_BYTES = 4096;

/**
 * The text of each row's line, in the order given (`null` where the log is gone or shorter
 * than the row says: the index is stale there). `logOf` names the log of a session row id;
 * `readerOf` gives an open reader of a log (or `null` when it is gone), which this leaves open:
 * the caller owns it (the engine keeps readers between searches, see `hit-cache.ts`).
 */
export function readEventLines(
  readerOf: (sessionId: string) => LogReader | null,
  rows: readonly EventRow[],
  logOf: (session: number) => string | undefined,
): (string | null)[] {
  const lines = new Array<string | null>(rows.length).fill(null);
  // The rows of each session in turn (a page holds a few): one pass finds the next session.
  const done = new Array<boolean>(rows.length).fill(false);
  for (let first = 0; first < rows.length; first += 1) {
    if (done[first]) continue;
    const session = rows[first]![ROW_SESSION];
    const indexes: number[] = [];
    for (let index = first; index < rows.length; index += 1) {
      if (rows[index]![ROW_SESSION] !== session) continue;
      indexes.push(index);
      done[index] = true;
    }
    const sessionId = logOf(session);
    if (sessionId === undefined) continue;
    let reader: LogReader | null;
    try {
      reader = readerOf(sessionId);
    } catch {
      continue;
    }
    if (reader !== null) readSessionLines(reader, rows, indexes, lines);
  }
  return lines;
}

/** Most bytes the shared read buffer keeps between searches (a longer span gets its own). */
const MAX_KEPT_BUFFER = 1 << 20;

/**
 * The buffer every line is read into and decoded from, grown on demand: one for the process,
 * not one per read (searches run synchronously, one at a time).
 */
let shared = Buffer.allocUnsafeSlow(64 * 1024);

function bufferFor(length: number): Buffer {
  if (length <= shared.length) return shared;
  if (length > MAX_KEPT_BUFFER) return Buffer.allocUnsafeSlow(length);
  shared = Buffer.allocUnsafeSlow(Math.max(length, shared.length * 2));
  return shared;
}

/**
 * Fills `lines` at `indexes` from one log: lines sorted by position, those less than
 * {@link MAX_GAP_BYTES} apart read with one `pread` of their span, each group on its own.
 */
function readSessionLines(
  reader: LogReader,
  rows: readonly EventRow[],
  indexes: number[],
  lines: (string | null)[],
): void {
  if (indexes.length > 1) indexes.sort((a, b) => rows[a]![ROW_OFFSET] - rows[b]![ROW_OFFSET]);
  let first = 0;
  while (first < indexes.length) {
    const start = rows[indexes[first]!]![ROW_OFFSET];
    let end = start + rows[indexes[first]!]![ROW_LENGTH];
    let last = first + 1;
    while (last < indexes.length && rows[indexes[last]!]![ROW_OFFSET] - end <= MAX_GAP_BYTES) {
      const row = rows[indexes[last]!]!;
      end = Math.max(end, row[ROW_OFFSET] + row[ROW_LENGTH]);
      last += 1;
    }
    const buffer = bufferFor(end - start);
    // A span that runs past the end of the file (a stale row): each line on its own.
    const spanRead = last - first > 1 && reader.readInto(buffer, 0, start, end - start);
    for (let at = first; at < last; at += 1) {
      const index = indexes[at]!;
      const offset = rows[index]![ROW_OFFSET];
      const length = rows[index]![ROW_LENGTH];
      if (spanRead) {
        lines[index] = buffer.toString("utf8", offset - start, offset - start + length);
      } else if (reader.readInto(buffer, 0, offset, length)) {
        lines[index] = buffer.toString("utf8", 0, length);
      }
    }
    first = last;
  }
}
