/**
 * A `.zst` source read as lines while it decompresses (fzstd's streaming `Decompress`): memory
 * holds the lines accepted so far and at most one line being read, never the whole decompressed
 * file. A line over the limit is counted, not kept, and reported as `splitLines` reports it.
 */
import { readFileSync } from "node:fs";
import { Decompress } from "fzstd";
import { DEFAULT_MAX_LINE_BYTES, type SourceLine, type SplitOptions, splitLines } from "./lines";
import type { SkippedLine } from "./types";
import { MAX_DECOMPRESSED_BYTES, SourceTooLargeError, zstdSizeBound } from "./zstd-size";

const CHUNK_BYTES = 64 * 1024;

/**
 * The lines of a `.zst` file, decompressed as a stream.
 *
 * @throws SourceTooLargeError when its headers say it decompresses past `MAX_DECOMPRESSED_BYTES`
 */
export function zstdLines(
  path: string,
  options: SplitOptions,
): { lines: SourceLine[]; skipped: SkippedLine[] } {
  const compressed = readFileSync(path);
  const bound = zstdSizeBound(compressed);
  if (bound !== undefined && bound > MAX_DECOMPRESSED_BYTES)
    throw new SourceTooLargeError(path, bound);
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const lines: SourceLine[] = [];
  const skipped: SkippedLine[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Offset and line number of the first byte of `pending` (or of the overlong line). */
  let offset = 0;
  let line = 1;
  /** Length so far of a line over the limit whose bytes are being dropped. */
  let overlong: number | undefined;

  const flushComplete = (data: Buffer) => {
    const split = splitLines(data, options);
    for (const item of split.lines)
      lines.push({ ...item, line: item.line + line - 1, offset: item.offset + offset });
    for (const item of split.skipped)
      skipped.push({ ...item, line: item.line + line - 1, offset: item.offset + offset });
    let newlines = 0;
    for (let index = data.indexOf(10); index !== -1; index = data.indexOf(10, index + 1))
      newlines += 1;
    line += newlines;
    offset += data.length;
  };
  const onData = (chunk: Uint8Array) => {
    let data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (overlong !== undefined) {
      const newline = data.indexOf(10);
      if (newline === -1) {
        overlong += data.length;
        return;
      }
      const length = overlong + newline;
      skipped.push({ path: options.path, line, offset, reason: `line too long (${length} bytes)` });
      line += 1;
      offset += length + 1;
      overlong = undefined;
      data = data.subarray(newline + 1);
    }
    const lastNewline = data.lastIndexOf(10);
    if (lastNewline === -1) {
      pending.push(Buffer.from(data));
      pendingBytes += data.length;
    } else {
      flushComplete(Buffer.concat([...pending, data.subarray(0, lastNewline + 1)]));
      const rest = data.subarray(lastNewline + 1);
      pending = rest.length > 0 ? [Buffer.from(rest)] : [];
      pendingBytes = rest.length;
    }
    if (pendingBytes > max) {
      overlong = pendingBytes;
      pending = [];
      pendingBytes = 0;
    }
  };
  const stream = new Decompress((chunk) => onData(chunk));
  for (let start = 0; start < compressed.length; start += CHUNK_BYTES) {
    const end = Math.min(start + CHUNK_BYTES, compressed.length);
    stream.push(compressed.subarray(start, end), end === compressed.length);
  }
  if (overlong !== undefined) {
    skipped.push({ path: options.path, line, offset, reason: `line too long (${overlong} bytes)` });
  } else if (pendingBytes > 0) {
    flushComplete(Buffer.concat(pending));
  }
  return { lines, skipped };
}
