/**
 * Reading a cold log (`<id>.jsonl.zst`) as a stream: its plain bytes are decompressed in chunks
 * as a reader asks for them, never whole. Memory stays bounded whatever the log's size: one input
 * chunk, one window of plain bytes and zstd's own window (≤ 8 MB at the levels the store writes).
 *
 * Offsets are those of the plain bytes (what `read()` reports and a reader keeps). A read forward
 * decompresses from where the stream is; a read behind it starts again from the nearest frame
 * start (a cold log is two frames, line 1 then the rest, so going back to the first event costs
 * nothing); the last plain window is kept, so a small step back is served from memory.
 *
 * Damage is `COLD_LOG_CORRUPT` naming the session: a frame zstd refuses, a file that ends before
 * the bytes its frame headers declare (truncated), or more bytes than declared. It is never a
 * `TORN_TAIL`: a cold log was whole when it was compressed, and repair cannot fix it.
 */
import * as fs from "node:fs";
import { basename } from "node:path";
import { EventLogCorruptError } from "@tapedeck/session/core";
import { hasErrorCode } from "./fs-util";
import {
  acquireDecompression,
  type DecompressionContext,
  firstFrame,
  frameContentSize,
  releaseDecompression,
  resetDecompression,
} from "./zstd";

/** Compressed bytes read from the file at a time. */
const INPUT_CHUNK = 1 << 17;
/** Plain bytes kept for a reader that steps back a little (a header read, a line's last byte). */
const WINDOW = 1 << 20;
/**
 * Streams that may hold a decompression context (zstd's window, ≈ 2–8 MB) and a plain window at
 * once. A search keeps up to 64 logs open for snippets: past this many, the stream used least
 * recently gives its context up and starts again from a frame start at its next read.
 */
export const MAX_LIVE_STREAMS = 8;
const live: ColdLogStream[] = [];

/** How many cold log streams hold a decompression context now (at most {@link MAX_LIVE_STREAMS}). */
export function liveColdStreams(): number {
  return live.length;
}

/** Where a zstd frame starts, in the compressed file and in the plain bytes. */
interface FrameStart {
  compressed: number;
  plain: number;
}

/**
 * A cold log open for reading by position, synchronously (the async `LogHandle` and the sync
 * `LogReader` are built on it). Not safe for two readers at once: each opens its own.
 */
export class ColdLogStream {
  /** The plain log's size in bytes, from the frame headers. */
  readonly size: number;
  private readonly frames: FrameStart[];
  private context: DecompressionContext | undefined;
  private input: Buffer;
  private inputStart = 0;
  private inputEnd = 0;
  /** The next compressed byte to read into `input`. */
  private compressedPosition = 0;
  /** The plain offset of the next byte zstd gives. */
  private plainPosition = 0;
  private frameOpen = false;
  private endChecked = false;
  private window: Buffer | undefined;
  private windowStart = 0;
  private windowLength = 0;
  private closed = false;

  private constructor(
    private readonly fd: number,
    private readonly compressedSize: number,
    private readonly path: string,
    private readonly sessionId: string,
    layout: { size: number; frames: FrameStart[] },
  ) {
    this.size = layout.size;
    this.frames = layout.frames;
    this.input = Buffer.allocUnsafe(Math.max(1, Math.min(INPUT_CHUNK, compressedSize)));
  }

  /**
   * A stream over compressed log `path`, open as `fd` (a regular file; the stream closes it).
   *
   * @throws EventLogCorruptError `COLD_LOG_CORRUPT` when its frame headers cannot be read.
   */
  static fromDescriptor(fd: number, path: string, sessionId: string): ColdLogStream {
    try {
      const compressedSize = fs.fstatSync(fd).size;
      const layout = readLayout(fd, compressedSize);
      if (layout === undefined) {
        throw coldLogCorrupt(path, sessionId, "has no readable zstd frame header");
      }
      return new ColdLogStream(fd, compressedSize, path, sessionId, layout);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /**
   * Copies up to `length` plain bytes at `position` into `target` at `targetOffset`; returns how
   * many (fewer near a window's end, 0 at or past {@link size}), like `fs.readSync`.
   *
   * @throws EventLogCorruptError `COLD_LOG_CORRUPT` (damaged frame, truncated file, extra bytes)
   */
  read(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    if (this.closed) throw new Error("read of a closed cold log");
    this.touch();
    const wanted = Math.min(length, this.size - position);
    if (wanted <= 0) return 0;
    const fromWindow = this.copyFromWindow(target, targetOffset, wanted, position);
    if (fromWindow > 0) return fromWindow;
    if (position < this.plainPosition) this.restart(position);
    // Small reads go through the window, so that the bytes after them are not decompressed twice.
    while (this.plainPosition < position || wanted < WINDOW / 2) {
      this.fillWindow();
      const copied = this.copyFromWindow(target, targetOffset, wanted, position);
      if (copied > 0) return copied;
    }
    const written = this.produce(target.subarray(targetOffset, targetOffset + wanted));
    if (written === 0) throw this.truncated();
    this.checkEnd();
    return written;
  }

  /** Closes the file and gives the decompression context back. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const context = this.giveUpContext();
    if (context !== undefined) releaseDecompression(context);
    fs.closeSync(this.fd);
  }

  /** Marks this stream as the one used most recently. */
  private touch(): void {
    const index = live.indexOf(this);
    if (index !== -1 && index !== live.length - 1) {
      live.splice(index, 1);
      live.push(this);
    }
  }

  /**
   * Gives up the context and the window (another stream needs them, or this one closes): the
   * position is lost, so the next read starts again at a frame start.
   */
  private giveUpContext(): DecompressionContext | undefined {
    const index = live.indexOf(this);
    if (index !== -1) live.splice(index, 1);
    const context = this.context;
    this.context = undefined;
    this.window = undefined;
    this.windowLength = 0;
    this.inputStart = 0;
    this.inputEnd = 0;
    this.plainPosition = Number.POSITIVE_INFINITY;
    return context;
  }

  private copyFromWindow(
    target: Uint8Array,
    targetOffset: number,
    wanted: number,
    position: number,
  ): number {
    const window = this.window;
    const from = position - this.windowStart;
    if (window === undefined || from < 0 || from >= this.windowLength) return 0;
    const count = Math.min(wanted, this.windowLength - from);
    window.copy(target, targetOffset, from, from + count);
    return count;
  }

  /** Decompresses the next plain bytes into the window (replacing what it held). */
  private fillWindow(): void {
    this.window ??= Buffer.allocUnsafe(Math.max(1, Math.min(WINDOW, this.size)));
    const room = Math.min(this.window.length, this.size - this.plainPosition);
    this.windowStart = this.plainPosition;
    this.windowLength = 0;
    if (room <= 0) throw this.truncated();
    const written = this.produce(this.window.subarray(0, room));
    if (written === 0) throw this.truncated();
    this.windowLength = written;
    this.checkEnd();
  }

  /** Starts decompressing again at the last frame start at or before `position`. */
  private restart(position: number): void {
    let start: FrameStart = { compressed: 0, plain: 0 };
    for (const frame of this.frames) if (frame.plain <= position) start = frame;
    resetDecompression(this.decompression());
    this.inputStart = 0;
    this.inputEnd = 0;
    this.compressedPosition = start.compressed;
    this.plainPosition = start.plain;
    this.frameOpen = false;
    this.endChecked = false;
  }

  /** Decompresses into `target` until it is full or the file ends; returns the bytes written. */
  private produce(target: Uint8Array): number {
    const context = this.decompression();
    let written = 0;
    while (written < target.length) {
      if (this.inputStart === this.inputEnd) this.fillInput();
      const atEnd = this.inputStart === this.inputEnd;
      const inputOffset = this.compressedPosition - (this.inputEnd - this.inputStart);
      let result: [number, number, number];
      try {
        result = context.decompressStream(
          target.subarray(written),
          this.input.subarray(this.inputStart, this.inputEnd),
        );
      } catch (error) {
        throw coldLogCorrupt(
          this.path,
          this.sessionId,
          `cannot be decompressed past byte ${this.plainPosition} of the log (zstd: ${error instanceof Error ? error.message : String(error)})`,
        );
      }
      const [hint, out, used] = result;
      written += out;
      this.plainPosition += out;
      this.inputStart += used;
      const progress = out > 0 || used > 0;
      // A frame ends with a hint of 0; a call with nothing to do asks for the next frame's
      // header (a hint above 0), which says nothing about the frame just read.
      if (hint === 0) {
        if (this.frameOpen || progress) this.noteFrameStart(inputOffset + used);
        this.frameOpen = false;
      } else if (progress) this.frameOpen = true;
      if (!progress) {
        if (atEnd) break;
        throw coldLogCorrupt(
          this.path,
          this.sessionId,
          "cannot be decompressed (zstd makes no progress)",
        );
      }
    }
    return written;
  }

  /** Records a frame boundary found while reading, for a later {@link restart}. */
  private noteFrameStart(compressed: number): void {
    const last = this.frames[this.frames.length - 1];
    if (last === undefined || this.plainPosition > last.plain) {
      this.frames.push({ compressed, plain: this.plainPosition });
    }
  }

  private fillInput(): void {
    this.inputStart = 0;
    this.inputEnd = 0;
    if (this.compressedPosition >= this.compressedSize) return;
    const count = fs.readSync(
      this.fd,
      this.input,
      0,
      Math.min(this.input.length, this.compressedSize - this.compressedPosition),
      this.compressedPosition,
    );
    this.inputEnd = count;
    this.compressedPosition += count;
  }

  /**
   * Once every declared byte is out: the frame must end and nothing may follow (a frame header
   * that declares fewer bytes than the file holds is damage too).
   */
  private checkEnd(): void {
    if (this.plainPosition < this.size || this.endChecked) return;
    this.endChecked = true;
    const probe = Buffer.allocUnsafe(64);
    if (this.produce(probe) > 0) {
      throw coldLogCorrupt(
        this.path,
        this.sessionId,
        `holds more than the ${this.size} bytes its frame headers declare`,
      );
    }
    if (this.frameOpen) throw this.truncated();
  }

  private truncated(): EventLogCorruptError {
    return coldLogCorrupt(
      this.path,
      this.sessionId,
      `ends before its last frame does: ${this.plainPosition} of ${this.size} bytes could be read (truncated)`,
    );
  }

  /** This stream's context, taken from the least recently used stream when too many hold one. */
  private decompression(): DecompressionContext {
    if (this.closed) throw new Error("read of a closed cold log");
    if (this.context === undefined) {
      const evicted = live.length >= MAX_LIVE_STREAMS ? live[0]?.giveUpContext() : undefined;
      // Taken from the middle of another log's frame: start it afresh.
      if (evicted !== undefined) resetDecompression(evicted);
      this.context = evicted ?? acquireDecompression();
      live.push(this);
    }
    return this.context;
  }
}

// O_NOFOLLOW: a link is never followed; O_NONBLOCK: a FIFO never waited on.
const coldFlags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Opens compressed log `coldPath` as a stream; `undefined` when there is none or it is not a
 * regular file (a link, FIFO, socket, directory: not listed by the catalog, not read here).
 *
 * @throws EventLogCorruptError `COLD_LOG_CORRUPT` when its frame headers cannot be read.
 */
export function openColdStream(coldPath: string, sessionId: string): ColdLogStream | undefined {
  const fd = openRegularFile(coldPath);
  return fd === undefined ? undefined : ColdLogStream.fromDescriptor(fd, coldPath, sessionId);
}

/**
 * Opens `path` read-only, never following a link nor waiting at a FIFO; `undefined` when it is
 * absent or not a regular file.
 */
export function openRegularFile(path: string): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path, coldFlags);
  } catch (error) {
    if (["ENOENT", "ENOTDIR", "ELOOP", "ENXIO"].some((code) => hasErrorCode(error, code))) {
      return undefined;
    }
    throw error;
  }
  if (!fs.fstatSync(fd).isFile()) {
    fs.closeSync(fd);
    return undefined;
  }
  return fd;
}

/** The `COLD_LOG_CORRUPT` error of compressed log `path`. */
export function coldLogCorrupt(
  path: string,
  sessionId: string,
  detail: string,
): EventLogCorruptError {
  return new EventLogCorruptError(
    "COLD_LOG_CORRUPT",
    `the compressed log ${basename(path)} ${detail}`,
    {
      sessionId,
    },
  );
}

/**
 * The plain size and known frame starts of a cold log, from its first frame (walked by block
 * headers) and the header of the one after it: the layout `compressLog` writes. `undefined` when
 * they cannot be read.
 */
function readLayout(
  fd: number,
  compressedSize: number,
): { size: number; frames: FrameStart[] } | undefined {
  let head = Buffer.allocUnsafe(Math.min(compressedSize, 1 << 16));
  head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
  let first = firstFrame(head);
  if (first === undefined && head.length < compressedSize) {
    head = Buffer.allocUnsafe(compressedSize);
    head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    first = firstFrame(head);
  }
  if (first === undefined) return undefined;
  const frames: FrameStart[] = [{ compressed: 0, plain: 0 }];
  if (first.end >= compressedSize) return { size: first.contentSize, frames };
  const next = Buffer.allocUnsafe(32);
  const got = fs.readSync(fd, next, 0, next.length, first.end);
  const rest = frameContentSize(next.subarray(0, got));
  if (rest === undefined) return undefined;
  frames.push({ compressed: first.end, plain: first.contentSize });
  return { size: first.contentSize + rest, frames };
}
