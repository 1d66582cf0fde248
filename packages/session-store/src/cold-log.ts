/**
 * Cold logs: a session with no writer and no append for a while is kept zstd-compressed as
 * `<id>.jsonl.zst` beside where its plain log was (two frames: the header line, then the rest, so
 * a listing reads the header without decompressing the log). Readers see the plain bytes; a
 * writer first restores the plain log ({@link warmLog}). A crash at any point leaves a whole
 * plain log, a whole compressed one, or both with the same bytes (the plain one is then read and
 * the compressed one removed by the next compaction or writer). See architecture/storage.md.
 */
import * as fs from "node:fs";
import { dirname } from "node:path";
import { SessionNotFoundError } from "@tapedeck/session";
import { COLD_SUFFIX, coldPathOf, readColdLog } from "./cold-read";
import { type ColdLogStream, openColdStream } from "./cold-stream";
import { LogCompressionError } from "./errors";
import {
  fsyncDirectory,
  hasErrorCode,
  removeFile,
  tempPathBeside,
  writeAll,
  writeTemp,
} from "./fs-util";

/** Plain bytes written at a time when a cold log is restored. */
const RESTORE_CHUNK = 1 << 20;

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
 * and `stored`, the plain bytes a restore writes back.
 */
export function freezeLog(
  path: string,
  rewritten?: Buffer,
): { before: number; after: number; stored: Buffer } {
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
  return { before: plain.length, after: compressed.length, stored: target };
}

/**
 * Makes sure plain log `path` exists before a writer appends: a compressed log is restored
 * (plain written whole and fsynced, then the compressed one removed); a compressed copy beside a
 * plain log (a crash's leftover) is removed. The caller holds the session's lock.
 *
 * @throws SessionNotFoundError when neither exists.
 */
export function warmLog(path: string, sessionId: string): void {
  const cold = coldPathOf(path);
  if (fs.existsSync(path)) {
    if (fs.existsSync(cold)) {
      removeFile(cold);
      fsyncDirectory(dirname(path));
    }
    return;
  }
  const stream = openColdStream(cold, sessionId);
  if (stream === undefined) throw new SessionNotFoundError(sessionId);
  try {
    restorePlain(stream, path);
    // The plain log's name is on disk for good before the compressed one goes.
    fsyncDirectory(dirname(path));
  } catch (error) {
    // Restored meanwhile by another process (which held no lock: never by a writer): as good.
    if (!hasErrorCode(error, "EEXIST")) throw error;
  } finally {
    stream.close();
  }
  removeFile(cold);
  fsyncDirectory(dirname(path));
}

/**
 * Writes the plain bytes of `stream` to `path` (which must not exist) in chunks: temp file,
 * fsync, link. A damaged `.zst` (`COLD_LOG_CORRUPT`) leaves no temp file and no plain log.
 */
function restorePlain(stream: ColdLogStream, path: string): void {
  const temp = tempPathBeside(path);
  // 0600: logs hold code, outputs and prompts; the home is private like ~/.ssh.
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    try {
      const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(RESTORE_CHUNK, stream.size)));
      for (let position = 0; position < stream.size; ) {
        const count = stream.read(chunk, 0, chunk.length, position);
        if (count === 0) break;
        writeAll(fd, chunk.subarray(0, count));
        position += count;
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temp, path);
  } finally {
    removeFile(temp);
  }
}
