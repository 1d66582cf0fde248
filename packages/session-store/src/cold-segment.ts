/**
 * A cold log's plain segment: what writers appended since `compact` compressed the log. A writer
 * on a cold log leaves `<id>.jsonl.zst` as it is (immutable) and appends to
 * `<id>.jsonl.zst.<base>.seg`, where `<base>` is the `.zst`'s plain size; the session's log is the
 * `.zst`'s plain bytes followed by the segment's, and offsets run through both. A later `compact`
 * folds the two into a new `.zst` (plain size `base` plus the segment's bytes) before removing the
 * segment, so a segment left by a crash in between names a base that is no longer the `.zst`'s
 * plain size: readers never open it (they open the name of the current base only), and
 * `storage compact` removes it. See architecture/storage.md, "Cold sessions".
 */
import * as fs from "node:fs";
import { coldPathOf } from "./cold-read";
import { type ColdLogStream, openColdStream, openRegularFile } from "./cold-stream";

const segmentPattern =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl\.zst\.(\d+)\.seg$/;

/** The segment of cold log `coldPath` whose `.zst` holds `base` plain bytes. */
export function segmentPathOf(coldPath: string, base: number): string {
  return `${coldPath}.${base}.seg`;
}

/** The session and base a segment's file name stands for; `undefined` for any other name. */
export function parseSegmentName(name: string): { sessionId: string; base: number } | undefined {
  const match = segmentPattern.exec(name);
  if (match === null) return undefined;
  const base = Number(match[2]);
  if (!Number.isSafeInteger(base)) return undefined;
  return { sessionId: match[1] as string, base };
}

/**
 * A cold log's bytes read by position, synchronously: the `.zst`'s plain bytes (decompressed as
 * read), then its segment's (a plain file, which a writer may be growing: its size is read again
 * at each {@link size}).
 */
export class SegmentedLog {
  constructor(
    readonly cold: ColdLogStream,
    /** The segment's descriptor; `undefined` when there is none. */
    private readonly segment: number | undefined,
  ) {}

  /** Plain bytes of the `.zst`: where the segment's start. */
  get base(): number {
    return this.cold.size;
  }

  /** Bytes of the segment now. */
  get segmentSize(): number {
    return this.segment === undefined ? 0 : fs.fstatSync(this.segment).size;
  }

  /** Bytes of the log now. */
  get size(): number {
    return this.base + this.segmentSize;
  }

  /** Reads up to `length` bytes at `position`; 0 at the end. Never crosses the `.zst`'s end. */
  read(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    const base = this.base;
    if (position < base) {
      return this.cold.read(target, targetOffset, Math.min(length, base - position), position);
    }
    if (this.segment === undefined || length === 0) return 0;
    return fs.readSync(this.segment, target, targetOffset, length, position - base);
  }

  close(): void {
    try {
      if (this.segment !== undefined) fs.closeSync(this.segment);
    } finally {
      this.cold.close();
    }
  }
}

/**
 * Opens the cold log of plain path `path` with its segment; `undefined` when there is no `.zst`.
 *
 * @throws EventLogCorruptError `COLD_LOG_CORRUPT` when its frame headers cannot be read.
 */
export function openSegmentedLog(path: string, sessionId: string): SegmentedLog | undefined {
  const coldPath = coldPathOf(path);
  const cold = openColdStream(coldPath, sessionId);
  if (cold === undefined) return undefined;
  let segment: number | undefined;
  try {
    segment = openRegularFile(segmentPathOf(coldPath, cold.size));
  } catch (error) {
    cold.close();
    throw error;
  }
  return new SegmentedLog(cold, segment);
}

/** The bytes of the segment of cold log `coldPath` at `base`; empty when there is none. */
export function readSegment(coldPath: string, base: number): Buffer {
  const fd = openRegularFile(segmentPathOf(coldPath, base));
  if (fd === undefined) return Buffer.alloc(0);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
