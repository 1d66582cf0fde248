/**
 * Cold logs: a session with no writer and no append for a while is kept zstd-compressed as
 * `<id>.jsonl.zst` beside where its plain log was (two frames: the header line, then the rest, so
 * a listing reads the header without decompressing the log). Readers see the plain bytes; a
 * writer leaves the `.zst` as it is and appends to a plain segment beside it (`cold-segment.ts`,
 * {@link openForAppend}), which `compact` folds in later ({@link foldSegment}). A crash at any
 * point of compressing leaves a whole plain log, a whole compressed one, or both with the same
 * bytes (the plain one is then read and the compressed one removed by the next compaction or
 * writer). See architecture/storage.md.
 */
import * as fs from "node:fs";
import { basename, dirname } from "node:path";
import { SessionNotFoundError, TapedeckError } from "@tapedeck/session";
import { COLD_SUFFIX, coldPathOf, readColdLog } from "./cold-read";
import { segmentPathOf } from "./cold-segment";
import { openColdStream } from "./cold-stream";
import { LogCompressionError } from "./errors";
import { fsyncDirectory, hasErrorCode, removeFile, tempPathBeside, writeTemp } from "./fs-util";

import { compressBytes, decompressBytes, firstFrame, frameContentSize } from "./zstd";

export { COLD_SUFFIX, coldPathOf, readColdLog };

/** What the line readers need of an open log: a real file or a decompressed one in memory. */
export interface LogHandle {
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** Whether session `sessionId` has a log at plain path `path`, plain or compressed. */
export function logExists(path: string): boolean {
  return fs.existsSync(path) || fs.existsSync(coldPathOf(path));
}

/**
 * Line 1 of compressed log `coldPath` and the plain log's size, from its first bytes only:
 * `undefined` when the file is gone, `null` when it cannot be read that way (damaged).
 */
export function coldHeader(
  coldPath: string,
): { stat: fs.Stats; text: string; end: number; size: number } | undefined | null {
  let fd: number;
  try {
    fd = fs.openSync(
      coldPath,
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
  } catch (error) {
    if (["ENOENT", "ELOOP", "ENXIO"].some((code) => hasErrorCode(error, code))) return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const head = Buffer.allocUnsafe(Math.min(stat.size, 1 << 16));
    const read = fs.readSync(fd, head, 0, head.length, 0);
    let bytes = head.subarray(0, read);
    let frame = firstFrame(bytes);
    if (frame === undefined && read < stat.size) {
      bytes = fs.readFileSync(coldPath);
      frame = firstFrame(bytes);
    }
    if (frame === undefined) return null;
    const text = decompressBytes(bytes.subarray(0, frame.end)).toString("utf8");
    if (!text.endsWith("\n")) return null;
    let size = frame.contentSize;
    if (frame.end < stat.size) {
      if (bytes.length < frame.end + 32) {
        const more = Buffer.allocUnsafe(32);
        const got = fs.readSync(fd, more, 0, 32, frame.end);
        bytes = Buffer.concat([bytes.subarray(0, frame.end), more.subarray(0, got)]);
      }
      const rest = frameContentSize(bytes.subarray(frame.end));
      if (rest === undefined) return null;
      size += rest;
    }
    return { stat, text: text.slice(0, -1), end: frame.contentSize, size };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** The compressed form of plain log bytes: the header line's frame, then the rest's. */
export function compressLog(plain: Buffer): Buffer {
  const newline = plain.indexOf(0x0a);
  const headerEnd = newline === -1 ? plain.length : newline + 1;
  const frames = [compressBytes(plain.subarray(0, headerEnd))];
  if (headerEnd < plain.length) frames.push(compressBytes(plain.subarray(headerEnd)));
  return Buffer.concat(frames);
}

/**
 * Replaces plain log `path` by its compressed form, keeping its times: the compressed file is
 * written whole (temp, fsync, link, directory fsync) and checked to decompress to the same bytes
 * before the plain log is removed. The caller holds the session's lock. `rewritten`: the bytes to
 * store instead of the plain log's (its payloads moved to blobs, which are already on disk for
 * good); the plain log stays the only copy until they are. Returns the bytes before and after,
 * `stored`, the plain bytes compressed, and `compressed`, the `.zst`'s bytes.
 */
export function freezeLog(
  path: string,
  rewritten?: Buffer,
): { before: number; after: number; stored: Buffer; compressed: Buffer } {
  const cold = coldPathOf(path);
  // A compressed copy left by a crash is older than or equal to the plain log: replace it.
  removeFile(cold);
  const plain = fs.readFileSync(path);
  const stat = fs.statSync(path);
  const target = rewritten ?? plain;
  const compressed = compressLog(target);
  if (!decompressBytes(compressed).equals(target)) {
    throw new LogCompressionError(path);
  }
  const temp = tempPathBeside(cold);
  writeTemp(temp, compressed, true);
  try {
    fs.utimesSync(temp, stat.atimeMs / 1000, stat.mtimeMs / 1000);
    fs.linkSync(temp, cold);
  } finally {
    removeFile(temp);
  }
  fsyncDirectory(dirname(path));
  removeFile(path);
  fsyncDirectory(dirname(path));
  return { before: plain.length, after: compressed.length, stored: target, compressed };
}

/** Where a writer appends to a session's log: the plain log, or a cold log's segment. */
export interface AppendTarget {
  /** The file appended to. */
  path: string;
  /** Bytes of the log before that file: 0 for a plain log, the `.zst`'s plain size else. */
  base: number;
  /** The `.zst` when `path` is its segment. */
  coldPath?: string;
}

/**
 * Where a writer on log `path` appends, without changing anything: the plain log when there is
 * one (a `.zst` beside it is a crash's leftover with the same bytes), else the segment of the
 * cold log at its plain size (read from its frame headers, nothing decompressed).
 *
 * @throws SessionNotFoundError when neither exists; `COLD_LOG_CORRUPT` when the `.zst`'s frame
 * headers cannot be read.
 */
export function appendTargetOf(path: string, sessionId: string): AppendTarget {
  if (fs.existsSync(path)) return { path, base: 0 };
  const coldPath = coldPathOf(path);
  const stream = openColdStream(coldPath, sessionId);
  if (stream === undefined) throw new SessionNotFoundError(sessionId);
  const base = stream.size;
  stream.close();
  return { path: segmentPathOf(coldPath, base), base, coldPath };
}

/**
 * Opens where a writer appends (the caller holds the session's lock), readable too (the kept
 * tail hashes the last bytes): the plain log, after removing a compressed copy a crash left
 * beside it; or the cold log's segment, created empty when there is none yet (its name made
 * durable before anything appended to it is acknowledged). The `.zst` is never written.
 */
export function openForAppend(
  path: string,
  sessionId: string,
): { fd: number; target: AppendTarget; created: boolean } {
  const target = appendTargetOf(path, sessionId);
  if (target.coldPath === undefined) {
    const cold = coldPathOf(path);
    if (fs.existsSync(cold)) {
      removeFile(cold);
      fsyncDirectory(dirname(path));
    }
    return { fd: fs.openSync(path, "a+"), target, created: false };
  }
  const flags = fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW;
  let fd: number;
  let created = true;
  try {
    // 0600: logs hold code, outputs and prompts; the home is private like ~/.ssh.
    fd = fs.openSync(target.path, flags | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    fsyncDirectory(dirname(path));
  } catch (error) {
    if (!hasErrorCode(error, "EEXIST")) throw error;
    fd = fs.openSync(target.path, flags);
    created = false;
  }
  if (!fs.fstatSync(fd).isFile()) {
    fs.closeSync(fd);
    throw new TapedeckError(
      "LOG_NOT_A_FILE",
      `the segment ${basename(target.path)} of session ${sessionId} is not a regular file`,
    );
  }
  return { fd, target, created };
}

/**
 * Folds cold log `path`'s segment into a new `.zst` holding `plain`: the `.zst`'s plain bytes as
 * they are, then the segment's (or what they became with payloads moved to blobs, which are on
 * disk for good first). The new `.zst` is written to a temp file, fsynced, checked to decompress
 * to `plain` and renamed over the old one (a reader sees the old or the new, whole); the segment
 * is removed only then. A crash in between leaves a segment whose base is no longer the `.zst`'s
 * plain size (which grew by the segment's bytes): never read again, removed by `storage compact`.
 * The caller holds the session's lock. Returns the new `.zst`'s bytes and size, and its plain size.
 */
export function foldSegment(
  path: string,
  sessionId: string,
  plain: Buffer,
  mtimeMs: number,
): { after: number; plainSize: number; compressed: Buffer } {
  const coldPath = coldPathOf(path);
  const target = appendTargetOf(path, sessionId);
  const compressed = compressLog(plain);
  if (!decompressBytes(compressed).equals(plain)) throw new LogCompressionError(path);
  const temp = tempPathBeside(coldPath);
  try {
    writeTemp(temp, compressed, true);
    fs.utimesSync(temp, mtimeMs / 1000, mtimeMs / 1000);
    fs.renameSync(temp, coldPath);
  } finally {
    removeFile(temp);
  }
  fsyncDirectory(dirname(path));
  removeFile(target.path);
  fsyncDirectory(dirname(path));
  return { after: compressed.length, plainSize: plain.length, compressed };
}
