/**
 * The kept tail of a log: what a writer needs to continue it without replaying it. A writer that
 * closes cleanly (its last append fsynced) writes, in `<home>/tails/<id>.json`, the log's size, the
 * sha256 of its last {@link HASHED_BYTES} bytes and the invariants' state at that point. The next
 * `openWriter` checks the size and hash under the lock and, when both match, validates appends
 * against that state instead of replaying the log (O(1) in the log's size). Anything else (no
 * file, another version, damage, a log that grew or shrank since) means a full replay: the file is
 * a hint checked against the log, never the truth, so it is written without `fsync`.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import {
  type InvariantSnapshot,
  type InvariantState,
  invariantError,
  invariantSnapshot,
  isInvariantViolation,
  restoreInvariantState,
  type SessionEvent,
  stepInvariants,
  TapedeckError,
} from "@tapedeck/session";
import { z } from "zod";
import { sha256Hex } from "./blob-store";
import { hasErrorCode, makeDirectories, removeFile, tempPathIn, writeAll } from "./fs-util";

/** Format of the kept tail's file. */
export const KEPT_TAIL_VERSION = 1;

/** How many bytes before the log's end the kept hash covers. */
export const HASHED_BYTES = 4096;

const keptTailSchema = z.object({
  v: z.literal(KEPT_TAIL_VERSION),
  size: z.number().int().positive(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  state: z.unknown(),
});

/** The folder of the kept tails of home `home`. */
export function tailsDirOf(home: string): string {
  return join(home, "tails");
}

function tailPathOf(tailsDir: string, sessionId: string): string {
  return join(tailsDir, `${sessionId}.json`);
}

/**
 * What a kept tail is checked against: the log's size now, and the hash that stands for its last
 * bytes at `size` (a plain log: its last {@link HASHED_BYTES}; a cold log with its segment:
 * `cold-segment.ts`).
 */
export interface TailedLog {
  size(): number;
  hash(size: number): string;
}

/** The {@link TailedLog} of a plain log open (readable) as `fd`. */
export function plainTailed(fd: number): TailedLog {
  return { size: () => fs.fstatSync(fd).size, hash: (size) => hashBefore(fd, size) };
}

/** sha256 of the bytes `[size - HASHED_BYTES, size)` of the file open as `fd`. */
function hashBefore(fd: number, size: number): string {
  return sha256Hex(lastBytes(fd, size));
}

/** The bytes `[size - HASHED_BYTES, size)` of the file open as `fd` (fewer if it is shorter). */
export function lastBytes(fd: number, size: number): Buffer {
  const from = Math.max(0, size - HASHED_BYTES);
  const bytes = Buffer.allocUnsafe(size - from);
  let read = 0;
  while (read < bytes.length) {
    const got = fs.readSync(fd, bytes, read, bytes.length - read, from + read);
    if (got === 0) break;
    read += got;
  }
  return bytes.subarray(0, read);
}

/**
 * The state kept for log `log` (its lock held), as the JSON it was written in; `undefined` when there is none or it does not describe the log as it is now (size, hash,
 * version, damage).
 */
export function readKeptTail(
  tailsDir: string,
  sessionId: string,
  log: TailedLog,
): InvariantSnapshot | undefined {
  let text: string;
  try {
    text = fs.readFileSync(tailPathOf(tailsDir, sessionId), "utf8");
  } catch (error) {
    if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = keptTailSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { size, hash, state } = parsed.data;
  if (log.size() !== size || log.hash(size) !== hash) return undefined;
  if (restoreInvariantState(state) === null) return undefined;
  return state as InvariantSnapshot;
}

/**
 * Keeps `state` as the tail of log `log`, `size` bytes long (all of them on disk): a temp file
 * renamed into place, so a reader sees the old file or the new one, never half. A failure is
 * dropped (the next writer replays): the log is what matters.
 */
export function keepTail(
  tailsDir: string,
  sessionId: string,
  log: TailedLog,
  size: number,
  state: InvariantSnapshot,
): void {
  writeTail(tailsDir, sessionId, size, () => log.hash(size), state);
}

/**
 * Keeps `state` as the tail of a log `size` bytes long whose hash (as its {@link TailedLog} will
 * compute it) is `hash`: a cold log just compressed, kept by `compact`. A failure is dropped.
 */
export function keepTailOfHash(
  tailsDir: string,
  sessionId: string,
  size: number,
  hash: string,
  state: InvariantSnapshot,
): void {
  if (size === 0) return;
  writeTail(tailsDir, sessionId, size, () => hash, state);
}

function writeTail(
  tailsDir: string,
  sessionId: string,
  size: number,
  hash: () => string,
  state: InvariantSnapshot,
): void {
  const temp = tempPathIn(tailsDir, sessionId);
  try {
    const text = JSON.stringify({ v: KEPT_TAIL_VERSION, size, hash: hash(), state });
    let out: number;
    try {
      out = fs.openSync(temp, "wx", 0o600);
    } catch (error) {
      if (!hasErrorCode(error, "ENOENT")) throw error;
      makeDirectories(tailsDir);
      out = fs.openSync(temp, "wx", 0o600);
    }
    try {
      writeAll(out, Buffer.from(text));
    } finally {
      fs.closeSync(out);
    }
    fs.renameSync(temp, tailPathOf(tailsDir, sessionId));
  } catch {
    try {
      removeFile(temp);
    } catch {
      // Nothing more to do: a leftover temp is never read as a tail.
    }
  }
}

/** Removes the kept tail of a session (its log was deleted, compressed or rewritten). */
export function forgetTail(tailsDir: string, sessionId: string): void {
  try {
    removeFile(tailPathOf(tailsDir, sessionId));
  } catch {
    // A tail that cannot be removed no longer matches its log's size or hash.
  }
}

/**
 * What a writer continuing from a kept tail validates appends against: the invariants' state,
 * restored from the kept JSON, and the events appended since it was opened (to roll back a
 * refused batch, and to complete the session when it is read whole).
 */
export class TailTarget {
  readonly sessionId: string;
  private readonly opened: InvariantSnapshot;
  private state: InvariantState;
  /** The events appended (validated) since the writer opened, in order. */
  readonly appended: SessionEvent[] = [];

  constructor(sessionId: string, opened: InvariantSnapshot) {
    this.sessionId = sessionId;
    this.opened = opened;
    this.state = restore(opened);
  }

  /** seq of the last event. */
  get lastSeq(): number {
    return this.state.last;
  }

  /**
   * Checks one event against the invariants and applies it.
   *
   * @throws EventLogCorruptError when the event breaks one; the state is left as it was.
   */
  append(event: SessionEvent): void {
    const next = stepInvariants(this.state, event);
    if (isInvariantViolation(next)) throw invariantError(next, event, this.sessionId);
    this.appended.push(event);
  }

  /** The state as JSON, to keep at close. */
  snapshot(): InvariantSnapshot {
    return invariantSnapshot(this.state);
  }

  /** Forgets the events after `lastSeq` (a refused batch): rebuilt from the kept state. */
  rollBack(lastSeq: number): void {
    if (this.state.last === lastSeq) return;
    const kept = this.appended.filter((event) => event.seq <= lastSeq);
    this.appended.length = 0;
    this.state = restore(this.opened);
    for (const event of kept) this.append(event);
  }
}

function restore(snapshot: InvariantSnapshot): InvariantState {
  const state = restoreInvariantState(snapshot);
  // Checked when the tail was read.
  if (state === null) throw new TapedeckError("BAD_KEPT_TAIL", "a kept tail's state is not one");
  return state;
}

/**
 * What a kept tail checks of a cold log and its segment, without decompressing: the `.zst` is
 * immutable, so its compressed size and the hash of its last compressed bytes stand for its plain
 * bytes; the segment is checked like a plain log (its last bytes). `zstTail`: the `.zst`'s last
 * {@link HASHED_BYTES} bytes (at most); `segmentTail`: the segment's.
 */
export function segmentedHash(
  zstSize: number,
  zstTail: Uint8Array,
  segmentTail: Uint8Array,
): string {
  return sha256Hex(
    Buffer.from(`cold ${zstSize} ${sha256Hex(zstTail)} ${sha256Hex(segmentTail)}`, "utf8"),
  );
}

/** The last compressed bytes hashed of a `.zst` whose bytes are `compressed`. */
export function zstTailOf(compressed: Uint8Array): Uint8Array {
  return compressed.subarray(Math.max(0, compressed.length - HASHED_BYTES));
}

/**
 * The {@link TailedLog} of a cold log: its `.zst` (`coldPath`, `base` plain bytes) and the segment
 * open as `segmentFd` (a writer's). The `.zst` is read at most once (its last bytes).
 */
export function segmentedTailed(coldPath: string, base: number, segmentFd: number): TailedLog {
  let zst: { size: number; tail: Buffer } | undefined;
  const zstPart = () => {
    if (zst === undefined) {
      const fd = fs.openSync(coldPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        const size = fs.fstatSync(fd).size;
        zst = { size, tail: lastBytes(fd, size) };
      } finally {
        fs.closeSync(fd);
      }
    }
    return zst;
  };
  return {
    size: () => base + fs.fstatSync(segmentFd).size,
    hash: (size) => {
      const { size: zstSize, tail } = zstPart();
      return segmentedHash(zstSize, tail, lastBytes(segmentFd, size - base));
    },
  };
}
