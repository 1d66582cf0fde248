import { EventLogCorruptError } from "@tapedeck/session/core";
import type { LogHandle } from "./cold-log";

/** One whole line of a log file (without its "\n"). */
export interface LogLine {
  text: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past its "\n". */
  end: number;
}

/** Final bytes with no "\n": an unfinished write. */
export interface TornTail {
  torn: true;
  line: number;
  offset: number;
  bytes: number;
}

/** Where to scan. */
export interface ScanOptions {
  /** Byte offset to start at (a line start). Default 0. */
  start?: number;
  /** Line number of the line at `start`. Default 1. */
  line?: number;
  /** Stop at this byte offset (the file size seen when the scan began). Default: end of file. */
  limit?: number;
  /** Read size in bytes. */
  chunkSize?: number;
}

const newline = 0x0a;

/**
 * Reads a file in chunks and yields its whole lines in batches (one batch per chunk, so a
 * 100k-line log costs a few hundred awaits, not 100k), decoding UTF-8 per line. Trailing bytes
 * without "\n" are reported once, last, as a {@link TornTail}; the caller decides whether that
 * is an error.
 */
export async function* scanLines(
  handle: LogHandle,
  options: ScanOptions = {},
): AsyncGenerator<LogLine[] | TornTail> {
  const chunkSize = options.chunkSize ?? 1 << 20;
  const limit = options.limit ?? (await handle.stat()).size;
  let position = options.start ?? 0;
  // No larger than what is left to read: a 1 MB buffer per small log, thousands of them in an
  // index run, is gigabytes of external memory and a full garbage collection every few logs.
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, limit - position)));
  let line = options.line ?? 1;
  // Bytes of a line that continues into the next chunk, and the file offset of their start.
  let carry: Buffer | undefined;
  let carryOffset = position;
  while (position < limit) {
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(
        buffer,
        0,
        Math.min(chunkSize, limit - position),
        position,
      ));
    } catch (error) {
      // A cold log's damage: at the first line not read whole.
      if (!EventLogCorruptError.isInstance(error)) throw error;
      throw error.withLocation({ line, offset: carry === undefined ? position : carryOffset });
    }
    if (bytesRead === 0) break;
    const fresh = buffer.subarray(0, bytesRead);
    const data = carry === undefined ? fresh : Buffer.concat([carry, fresh]);
    const base = carry === undefined ? position : carryOffset;
    position += bytesRead;
    const lines: LogLine[] = [];
    let from = 0;
    for (;;) {
      const at = data.indexOf(newline, from);
      if (at === -1) break;
      lines.push({
        text: data.toString("utf8", from, at),
        line,
        offset: base + from,
        end: base + at + 1,
      });
      line += 1;
      from = at + 1;
    }
    // Copy: `buffer` is reused by the next read.
    carry = from < data.length ? Buffer.from(data.subarray(from)) : undefined;
    carryOffset = base + from;
    if (lines.length > 0) yield lines;
  }
  if (carry !== undefined) {
    yield { torn: true, line, offset: carryOffset, bytes: carry.length };
  }
}

/** True for the torn-tail marker of {@link scanLines}. */
export function isTornTail(value: LogLine[] | TornTail): value is TornTail {
  return !Array.isArray(value);
}

/**
 * Counts the "\n" bytes in `[0, end)` (the line number at a byte offset is that count plus one)
 * and gives the byte just before `end` (a "\n" when `end` starts a line), in one pass: a cold
 * log is decompressed once for both.
 */
export async function linesBefore(
  handle: LogHandle,
  end: number,
): Promise<{ newlines: number; lastByte: number | undefined }> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(1 << 20, end)));
  let newlines = 0;
  let lastByte: number | undefined;
  let position = 0;
  while (position < end) {
    const { bytesRead } = await handle.read(
      buffer,
      0,
      Math.min(buffer.length, end - position),
      position,
    );
    if (bytesRead === 0) break;
    const view = buffer.subarray(0, bytesRead);
    let at = view.indexOf(newline, 0);
    while (at !== -1) {
      newlines += 1;
      at = view.indexOf(newline, at + 1);
    }
    position += bytesRead;
    lastByte = position === end ? view[bytesRead - 1] : undefined;
  }
  return { newlines, lastByte };
}

/** The byte just before `offset` (to check that an offset starts a line), or `undefined` at 0. */
export async function byteBefore(handle: LogHandle, offset: number): Promise<number | undefined> {
  if (offset <= 0) return undefined;
  const buffer = Buffer.alloc(1);
  const { bytesRead } = await handle.read(buffer, 0, 1, offset - 1);
  return bytesRead === 1 ? buffer[0] : undefined;
}
