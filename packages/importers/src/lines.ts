/**
 * Source files as lines: the one place that splits bytes into lines, refuses huge lines and
 * parses JSON, reporting the file, line and byte offset of anything it cannot read.
 */
import { readFileSync } from "node:fs";
import { decompress } from "fzstd";
import type { SkippedLine } from "./types";
import { MAX_DECOMPRESSED_BYTES, SourceTooLargeError, zstdSizeBound } from "./zstd-size";

/** One line of a source file. */
export interface SourceLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  text: string;
  /** True for a final line without "\n" (possibly torn by a crash). */
  last?: boolean;
}

/** Lines longer than this are skipped unread (a 50 MB base64 image is not conversation). */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Options of {@link splitLines}. */
export interface SplitOptions {
  /** The file the bytes came from (for skip records). */
  path: string;
  /** Default {@link DEFAULT_MAX_LINE_BYTES}. */
  maxLineBytes?: number;
  /**
   * Where `bytes` start in the file, when they are its end only (the lines a source grew by):
   * the number of the first line and its byte offset. Default line 1 at offset 0.
   */
  from?: { line: number; offset: number };
}

/**
 * Splits bytes at "\n" (a trailing "\r" is dropped). Blank lines are ignored; a line over the
 * limit is recorded in `skipped` and never decoded.
 */
export function splitLines(
  bytes: Uint8Array,
  options: SplitOptions,
): { lines: SourceLine[]; skipped: SkippedLine[] } {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lines: SourceLine[] = [];
  const skipped: SkippedLine[] = [];
  let start = 0;
  let line = options.from?.line ?? 1;
  const base = options.from?.offset ?? 0;
  while (start < buffer.length) {
    const newline = buffer.indexOf(10, start);
    const end = newline === -1 ? buffer.length : newline;
    const length = end - start;
    if (length > max) {
      skipped.push({
        path: options.path,
        line,
        offset: base + start,
        reason: `line too long (${length} bytes)`,
      });
    } else if (length > 0) {
      let text = buffer.toString("utf8", start, end);
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (text.trim() !== "") {
        lines.push(
          newline === -1
            ? { line, offset: base + start, text, last: true }
            : { line, offset: base + start, text },
        );
      }
    }
    if (newline === -1) break;
    start = newline + 1;
    line += 1;
  }
  return { lines, skipped };
}

/**
 * The bytes of a source file; `.zst` files are decompressed (pure JS, Node 20 has no zstd).
 *
 * @throws SourceTooLargeError for a `.zst` whose headers say it decompresses past
 * `MAX_DECOMPRESSED_BYTES` (checked before anything is decompressed)
 */
export function readSourceBytes(path: string): Uint8Array {
  const bytes = readFileSync(path);
  if (!path.endsWith(".zst")) return bytes;
  const bound = zstdSizeBound(bytes);
  if (bound !== undefined && bound > MAX_DECOMPRESSED_BYTES)
    throw new SourceTooLargeError(path, bound);
  return decompress(bytes);
}

/** A parsed line, or the reason it was skipped. */
export type ParsedLine = { ok: true; value: unknown } | { ok: false; skipped: SkippedLine };

/**
 * `JSON.parse` of one line. A final line without "\n" that does not parse is reported as a
 * truncated last line (a crash tore it); any other failure as `not JSON`.
 */
export function parseJsonLine(source: SourceLine, path: string): ParsedLine {
  try {
    return { ok: true, value: JSON.parse(source.text) };
  } catch {
    return {
      ok: false,
      skipped: {
        path,
        line: source.line,
        offset: source.offset,
        reason: source.last === true ? "truncated last line" : "not JSON",
      },
    };
  }
}

/** `JSON.parse` of a whole document (opencode exports, storage files). */
export function parseJsonDocument(text: string, path: string): ParsedLine {
  return parseJsonLine({ line: 0, offset: 0, text }, path);
}
