import * as fs from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { basename } from "node:path";
import { SessionNotFoundError, TapedeckError } from "@tapedeck/session";
import type { LogHandle } from "./cold-log";
import { openSegmentedLog, type SegmentedLog } from "./cold-segment";
import { hasErrorCode } from "./fs-util";

const marker = "tapedeck.error.LogNotAFileError";
const symbol = Symbol.for(marker);

/** What a `<uuid>.jsonl` entry of `sessions/` turned out to be, when it is not a regular file. */
export type LogEntryKind = "directory" | "symbolic link" | "FIFO" | "socket" | "device";

/**
 * A `sessions/<uuid>.jsonl` entry that is not a regular file (a directory, FIFO, socket, device or
 * symbolic link). It is never opened for reading in a way that could hang (FIFO) and never
 * followed (a link's target is not read, so nothing of it is quoted).
 */
export class LogNotAFileError extends TapedeckError {
  readonly [symbol] = true;
  readonly sessionId: string;
  /** The log's path. */
  readonly path: string;
  readonly kind: LogEntryKind;

  constructor(sessionId: string, path: string, kind: LogEntryKind) {
    super(
      "LOG_NOT_A_FILE",
      `sessions/${basename(path)} is a ${kind}, not a session log file; it is skipped.`,
    );
    this.name = "LogNotAFileError";
    this.sessionId = sessionId;
    this.path = path;
    this.kind = kind;
  }

  static override isInstance(error: unknown): error is LogNotAFileError {
    return TapedeckError.hasMarker(error, marker);
  }
}

function kindOf(stat: fs.Stats): LogEntryKind | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return "directory";
  if (stat.isSymbolicLink()) return "symbolic link";
  if (stat.isFIFO()) return "FIFO";
  if (stat.isSocket()) return "socket";
  return "device";
}

// O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting forever;
// O_NOFOLLOW: a symbolic link is refused (ELOOP), its target never read.
const readFlags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Opens a log for reading: an absent file is `SessionNotFoundError`; anything but a regular file
 * (checked on the opened descriptor, so no race between check and open) is
 * {@link LogNotAFileError}.
 */
export async function openLogFile(path: string, sessionId: string): Promise<LogHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, readFlags);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) {
      // A cold log (and its segment): decompressed as it is read, in chunks.
      const cold = openSegmentedLog(path, sessionId);
      if (cold !== undefined) return segmentedLogHandle(cold);
      throw new SessionNotFoundError(sessionId, { cause: error });
    }
    if (hasErrorCode(error, "ELOOP")) throw new LogNotAFileError(sessionId, path, "symbolic link");
    if (hasErrorCode(error, "ENXIO")) throw new LogNotAFileError(sessionId, path, "socket");
    throw error;
  }
  const kind = kindOf(await handle.stat());
  if (kind !== undefined) {
    await handle.close();
    throw new LogNotAFileError(sessionId, path, kind);
  }
  return handle;
}

/**
 * The bytes of a log, read synchronously with the checks of {@link openLogFile} (a cold log
 * decompressed): what a writer reads when its kept tail spared it the replay and the whole
 * session is asked for after all.
 */
export function readLogFileSync(path: string, sessionId: string): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(path, readFlags);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) {
      const cold = openSegmentedLog(path, sessionId);
      if (cold !== undefined) return readAllOf(cold);
      throw new SessionNotFoundError(sessionId, { cause: error });
    }
    if (hasErrorCode(error, "ELOOP")) throw new LogNotAFileError(sessionId, path, "symbolic link");
    if (hasErrorCode(error, "ENXIO")) throw new LogNotAFileError(sessionId, path, "socket");
    throw error;
  }
  try {
    const kind = kindOf(fs.fstatSync(fd));
    if (kind !== undefined) throw new LogNotAFileError(sessionId, path, kind);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The async {@link LogHandle} of the line readers over a cold log and its segment. */
function segmentedLogHandle(log: SegmentedLog): LogHandle {
  return {
    async read(buffer, offset, length, position) {
      return { bytesRead: log.read(buffer, offset, length, position) };
    },
    async stat() {
      return { size: log.size };
    },
    async close() {
      log.close();
    },
  };
}

/** Every byte of a cold log and its segment (then closed). */
function readAllOf(log: SegmentedLog): Buffer {
  try {
    const size = log.size;
    const bytes = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const count = log.read(bytes, done, size - done, done);
      if (count === 0) break;
      done += count;
    }
    return bytes.subarray(0, done);
  } finally {
    log.close();
  }
}

/** Synchronous check of a log entry without following it: its kind when it is not a file. */
export function logEntryKind(path: string): LogEntryKind | undefined {
  return kindOf(fs.lstatSync(path));
}
