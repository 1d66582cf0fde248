/**
 * Reading the lines of index rows back from their logs, for a page of search hits. The hits of
 * a newest-first page cluster in a few sessions, often a few lines apart, so the lines of one
 * session that lie close together are read with one `pread` of the span that covers them rather
 * than one each: a page of 20 hits costs a few system calls, not 20 reads, and reads little more
 * than its lines.
 */
import type { LogReader } from "@tapedeck/session-store";

/** Where an indexed event's line is: its session (row id) and byte range in the log. */
export interface LinePosition {
  session: number;
  offset: number;
  length: number;
}

/**
 * Largest gap between two lines of a session that one read spans. Lines closer than this are read
 * together (the hits of one turn); farther apart, each group is read on its own: a page's hits
 * spread over a long log must not read the whole log between them (20 hits of ≈ 700 bytes once
 * cost ≈ 400 KB of reading when one span covered each session's hits).
 */
export const MAX_GAP_BYTES = 4096;

/**
 * The text of each position's line, in the order given (`null` where the log is gone or shorter
 * than the position: the index is stale there). `logOf` names the log of a session row id;
 * `readerOf` gives an open reader of a log (or `null` when it is gone), which this leaves open:
 * the caller owns it (the engine keeps readers between searches, see `hit-cache.ts`).
 */
export function readEventLines(
  readerOf: (sessionId: string) => LogReader | null,
  positions: readonly LinePosition[],
  logOf: (session: number) => string | undefined,
): (string | null)[] {
  const bySession = new Map<number, number[]>();
  positions.forEach((position, index) => {
    const indexes = bySession.get(position.session);
    if (indexes === undefined) bySession.set(position.session, [index]);
    else indexes.push(index);
  });
  const lines: (string | null)[] = positions.map(() => null);
  for (const [session, indexes] of bySession) {
    const sessionId = logOf(session);
    if (sessionId === undefined) continue;
    let reader: LogReader | null;
    try {
      reader = readerOf(sessionId);
    } catch {
      continue;
    }
    if (reader !== null) readSessionLines(reader, positions, indexes, lines);
  }
  return lines;
}

/**
 * Fills `lines` at `indexes` from one log: lines sorted by position, those less than
 * {@link MAX_GAP_BYTES} apart read with one `pread` of their span, each group on its own.
 */
function readSessionLines(
  reader: LogReader,
  positions: readonly LinePosition[],
  indexes: readonly number[],
  lines: (string | null)[],
): void {
  const sorted = [...indexes].sort((a, b) => positions[a]!.offset - positions[b]!.offset);
  let first = 0;
  while (first < sorted.length) {
    const start = positions[sorted[first]!]!.offset;
    let end = start + positions[sorted[first]!]!.length;
    let last = first + 1;
    while (last < sorted.length && positions[sorted[last]!]!.offset - end <= MAX_GAP_BYTES) {
      const position = positions[sorted[last]!]!;
      end = Math.max(end, position.offset + position.length);
      last += 1;
    }
    const group = sorted.slice(first, last);
    const span = group.length > 1 ? reader.readAt(start, end - start) : null;
    for (const index of group) {
      const { offset, length } = positions[index]!;
      if (span !== null) {
        lines[index] = span.toString("utf8", offset - start, offset - start + length);
      } else {
        // One line, or a span that runs past the end of the file: each line on its own.
        const buffer = reader.readAt(offset, length);
        lines[index] = buffer === null ? null : buffer.toString("utf8");
      }
    }
    first = last;
  }
}
