/**
 * Reading the lines of index rows back from their logs, for a page of search hits. The hits of
 * a newest-first page cluster in a few sessions, close together at the end of each log, so the
 * rows of one session are read with one `pread` of the span that covers them (when it is small)
 * rather than one each: a page of 20 hits costs a few system calls, not 20 reads.
 */
import type { LogReader } from "@tapedeck/session-store";
import type { IndexedStore } from "./indexer";

/** Where an indexed event's line is: its session (row id) and byte range in the log. */
export interface LinePosition {
  session: number;
  offset: number;
  length: number;
}

/**
 * Longest span read at once to cover several lines of a session. A span spends at most this many
 * bytes of reading on the gaps between lines; past it, each line is read on its own.
 */
export const MAX_SPAN_BYTES = 256 * 1024;

/**
 * The text of each position's line, in the order given (`null` where the log is gone or shorter
 * than the position: the index is stale there). `logOf` names the log of a session row id.
 */
export function readEventLines(
  store: Pick<IndexedStore, "openLogReader">,
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
      reader = store.openLogReader(sessionId);
    } catch {
      continue;
    }
    if (reader === null) continue;
    try {
      readSessionLines(reader, positions, indexes, lines);
    } finally {
      reader.close();
    }
  }
  return lines;
}

/** Fills `lines` at `indexes` from one log: one read of the covering span when it is small. */
function readSessionLines(
  reader: LogReader,
  positions: readonly LinePosition[],
  indexes: readonly number[],
  lines: (string | null)[],
): void {
  let start = Number.POSITIVE_INFINITY;
  let end = 0;
  for (const index of indexes) {
    const position = positions[index]!;
    start = Math.min(start, position.offset);
    end = Math.max(end, position.offset + position.length);
  }
  const span =
    indexes.length > 1 && end - start <= MAX_SPAN_BYTES ? reader.readAt(start, end - start) : null;
  for (const index of indexes) {
    const { offset, length } = positions[index]!;
    if (span !== null) {
      lines[index] = span.toString("utf8", offset - start, offset - start + length);
    } else {
      const buffer = reader.readAt(offset, length);
      lines[index] = buffer === null ? null : buffer.toString("utf8");
    }
  }
}
