/**
 * The catalog of a store's folder: which logs exist, with size, time and header. This file and the
 * store are the only code that lists `<home>/sessions` or matches its file names.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { EventLogCorruptError, parseHeaderLine, type SessionHeader } from "@tapedeck/session";
import * as z from "zod/mini";
import { COLD_SUFFIX, coldHeader, coldPathOf } from "./cold-log";
import { segmentPathOf } from "./cold-segment";
import { hasErrorCode } from "./fs-util";
import { mayBeTempName } from "./leftover-temps";
import { sessionIdOfFileName } from "./log-names";
import { type LogEntryKind, LogNotAFileError } from "./log-not-a-file";
import type { LogEntry, LogOffset, ScanResult, SkippedEntry } from "./session-store";

/** A byte offset the store handed out (or checked); see {@link LogOffset}. */
export function asLogOffset(value: number): LogOffset {
  return value as LogOffset;
}

/**
 * A {@link LogOffset} coming back from outside the store (a database row, a request): a whole
 * number ≥ 0. Whether it is a line start is checked by `read`.
 */
export const logOffsetSchema = z.pipe(
  z.number().check(z.int(), z.nonnegative()),
  z.transform(asLogOffset),
);

/**
 * One listing of the sessions folder: the ids of the logs, sorted; non-regular entries named like
 * logs (`skipped`); names that may be the store's temp files (`temps`, for `LeftoverTemps`).
 */
export interface LogNames {
  ids: string[];
  /** The ids whose log is compressed only (`<id>.jsonl.zst`, no plain log beside it). */
  cold?: ReadonlySet<string>;
  skipped: SkippedEntry[];
  temps: string[];
}

/** Lists the folder once; see {@link LogNames}. A missing folder has no entries. */
export async function listLogNames(sessionsDir: string): Promise<LogNames> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(sessionsDir, { withFileTypes: true });
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return { ids: [], skipped: [], temps: [] };
    throw error;
  }
  const ids: string[] = [];
  const skipped: SkippedEntry[] = [];
  const temps: string[] = [];
  const plain = new Set<string>();
  const cold = new Set<string>();
  for (const entry of entries) {
    const coldId = entry.name.endsWith(COLD_SUFFIX)
      ? sessionIdOfFileName(entry.name.slice(0, -COLD_SUFFIX.length))
      : undefined;
    if (coldId !== undefined && entry.isFile()) {
      cold.add(coldId);
      continue;
    }
    const sessionId = sessionIdOfFileName(entry.name);
    if (sessionId === undefined) {
      if (mayBeTempName(entry.name)) temps.push(entry.name);
      continue;
    }
    if (!entry.isFile()) {
      const error = new LogNotAFileError(sessionId, join(sessionsDir, entry.name), kindOf(entry));
      skipped.push({ name: entry.name, reason: error.message });
      continue;
    }
    ids.push(sessionId);
    plain.add(sessionId);
  }
  for (const id of plain) cold.delete(id);
  ids.push(...cold);
  ids.sort();
  return { ids, skipped, temps, cold };
}

function kindOf(entry: fs.Dirent): LogEntryKind {
  if (entry.isDirectory()) return "directory";
  if (entry.isSymbolicLink()) return "symbolic link";
  if (entry.isFIFO()) return "FIFO";
  if (entry.isSocket()) return "socket";
  return "device";
}

/**
 * One log's catalog entry from a single open: `O_NOFOLLOW`, `fstat`, the first line. `null` when
 * the file is gone (moved to the trash since the listing) or is not a regular file.
 */
export function catalogEntry(path: string, sessionId: string): LogEntry | null {
  let fd: number;
  try {
    if (!fs.existsSync(path) && fs.existsSync(coldPathOf(path)))
      return coldCatalogEntry(path, sessionId);
    // O_NONBLOCK: a FIFO put there since the listing does not hang the open.
    fd = fs.openSync(
      path,
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
  } catch (error) {
    if (["ENOENT", "ELOOP", "ENXIO"].some((code) => hasErrorCode(error, code))) return null;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return null;
    const base = {
      sessionId,
      size: asLogOffset(stat.size),
      modifiedAt: stat.mtime,
      modifiedMs: stat.mtimeMs,
      inode: stat.ino,
    };
    const line = readFirstLine(fd);
    if (line === null) {
      return {
        ...base,
        headerError: new EventLogCorruptError(
          stat.size === 0 ? "BAD_HEADER" : "TORN_TAIL",
          stat.size === 0 ? "the log is empty (no header line)" : "the header line is not complete",
          { line: 1, offset: 0, sessionId },
        ),
      };
    }
    return withHeader(base, line);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The catalog entry of compressed log `<path>.zst`: the plain log's size (from the frame
 * headers), the compressed file's times and inode, line 1 from the first frame only.
 */
export function coldCatalogEntry(path: string, sessionId: string): LogEntry | null {
  const found = coldHeader(coldPathOf(path));
  if (found === undefined) return null;
  if (found === null) {
    const stat = fs.statSync(coldPathOf(path), { throwIfNoEntry: false });
    if (stat === undefined) return null;
    return {
      sessionId,
      size: asLogOffset(stat.size),
      modifiedAt: stat.mtime,
      modifiedMs: stat.mtimeMs,
      inode: stat.ino,
      compressed: true,
      headerError: new EventLogCorruptError(
        "COLD_LOG_CORRUPT",
        "the compressed log's first frame cannot be read",
        {
          line: 1,
          offset: 0,
          sessionId,
        },
      ),
    };
  }
  // What writers appended since: the segment at the `.zst`'s plain size (`cold-segment.ts`).
  const segment = fs.statSync(segmentPathOf(coldPathOf(path), found.size), {
    throwIfNoEntry: false,
  });
  // An empty one (a writer that appended nothing) changes nothing: not even the time, which an
  // index would take for a change in place.
  const grown =
    segment?.isFile() === true && segment.size > 0 && segment.mtimeMs > found.stat.mtimeMs;
  const base = {
    sessionId,
    size: asLogOffset(found.size + (segment?.isFile() === true ? segment.size : 0)),
    modifiedAt: grown ? segment.mtime : found.stat.mtime,
    modifiedMs: grown ? segment.mtimeMs : found.stat.mtimeMs,
    // The `.zst`'s: a segment only adds bytes after the ones an index read; a fold is a new file.
    inode: found.stat.ino,
    compressed: true,
  };
  return withHeader(base, found);
}

/**
 * The entry of a log (plain or compressed) whose line 1 is `line`: its parsed header, or why the
 * header is refused (not a header; names another session than the file's).
 */
function withHeader<Base extends { sessionId: string }>(
  base: Base,
  line: { text: string; end: number },
): Base &
  (
    | { header: SessionHeader; headerText: string; headerEnd: LogOffset }
    | { headerError: EventLogCorruptError }
  ) {
  const { sessionId } = base;
  let header: SessionHeader;
  try {
    header = parseHeaderLine(line.text, { line: 1, offset: 0 });
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    return { ...base, headerError: error.withLocation({ sessionId }) };
  }
  if (header.sessionId !== sessionId) {
    return {
      ...base,
      headerError: new EventLogCorruptError(
        "BAD_HEADER",
        `header names session ${header.sessionId}, but the file belongs to session ${sessionId}`,
        { line: 1, offset: 0, sessionId },
      ),
    };
  }
  return { ...base, header, headerText: line.text, headerEnd: asLogOffset(line.end) };
}

/** Line 1 (without its "\n") and the offset after it; `null` when there is no whole first line. */
function readFirstLine(fd: number): { text: string; end: number } | null {
  let size = 4096;
  for (;;) {
    const buffer = Buffer.allocUnsafe(size);
    const read = fs.readSync(fd, buffer, 0, size, 0);
    const newline = buffer.subarray(0, read).indexOf(0x0a);
    if (newline >= 0) return { text: buffer.toString("utf8", 0, newline), end: newline + 1 };
    if (read < size || size >= 1 << 24) return null;
    size *= 4;
  }
}

/** Every log of a listing of the folder with its catalog entry; see `SessionStore.scan`. */
export function scanFolder(
  sessionsDir: string,
  { ids, skipped, cold }: LogNames,
  warn: (path: string, message: string) => void,
): ScanResult {
  for (const entry of skipped) warn(join(sessionsDir, entry.name), entry.reason);
  const logs: LogEntry[] = [];
  for (const sessionId of ids) {
    const path = join(sessionsDir, `${sessionId}.jsonl`);
    const entry = cold?.has(sessionId)
      ? coldCatalogEntry(path, sessionId)
      : catalogEntry(path, sessionId);
    if (entry !== null) logs.push(entry);
  }
  return { logs, skipped };
}
