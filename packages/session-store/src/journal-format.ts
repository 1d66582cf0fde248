/**
 * The change journal's format (see `change-journal.ts`): the header line, the records, the cursors
 * handed to readers, and reading a header and records from an open journal. Layout: line 1
 * `tapedeck-changes 1 <generation>`, then one record per line, `<kind> <sessionId>`.
 */
import * as fs from "node:fs";
import * as z from "zod/mini";
import { fileStats } from "./fs-util";

/** The header line's start; a generation (16 hex digits) and "\n" follow. */
export const MAGIC = "tapedeck-changes 1 ";
const headerPattern = /^tapedeck-changes 1 ([0-9a-f]{16})$/;
const recordPattern = /^([ocndr]) ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Bytes of the longest record without its newline (`k` + space + a 36-character id). */
const MAX_RECORD_BYTES = 38;
/** A reader reads the journal this much at a time. */
export const READ_CHUNK_BYTES = 64 * 1024;

/**
 * What a record says happened: `o` a writer opened (written before its first append), `c` it
 * closed (after its last append), `n` a log was created, `d` moved to the trash, `r` repaired.
 */
export type JournalRecordKind = "o" | "c" | "n" | "d" | "r";

/**
 * Where a reader stopped in the journal: `<generation>:<byte offset>`. Opaque to callers; store it
 * as a string and hand it back to `changesSince`.
 */
export type ChangeCursor = string & { readonly __changeCursor: true };

/** A cursor read from outside (a database, a request): checked before it is trusted. */
export const changeCursorSchema = z.pipe(
  z.string().check(z.regex(/^[0-9a-f]{16}:\d{1,15}(:[0-9a-z.]{1,40})?$/)),
  z.transform((text: string) => text as ChangeCursor),
);

/** Parses a cursor; `null` for anything that is not one (the caller then scans). */
export function parseChangeCursor(
  text: unknown,
): { generation: string; offset: number; folder: string } | null {
  const parsed = changeCursorSchema.safeParse(text);
  if (!parsed.success) return null;
  const [generation = "", offset = "0", folder = ""] = parsed.data.split(":");
  return { generation, offset: Number(offset), folder };
}

/** A cursor; `folder` stamps the sessions folder's state (see `SessionStore.changesSince`). */
export function cursorOf(generation: string, offset: number, folder = ""): ChangeCursor {
  return `${generation}:${offset}${folder === "" ? "" : `:${folder}`}` as ChangeCursor;
}

/** The header of the journal open as `fd`: its generation, the file's size, where records start. */
export function headerOf(
  fd: number,
): { generation: string; size: number; headerEnd: number } | "damaged" {
  const stat = fileStats(fd) as fs.BigIntStats;
  // A FIFO, a device or a directory in the journal's place is damage (replaced by a writer).
  if (!stat.isFile()) return "damaged";
  const size = Number(stat.size);
  const buffer = Buffer.alloc(64);
  const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
  const newline = buffer.subarray(0, read).indexOf(0x0a);
  if (newline === -1) return "damaged";
  const match = headerPattern.exec(buffer.toString("latin1", 0, newline));
  if (match === null) return "damaged";
  return { generation: match[1] as string, size, headerEnd: newline + 1 };
}

/**
 * The records between `from` and `to`, read in chunks of {@link READ_CHUNK_BYTES} (memory stays
 * bounded whatever the file holds); `end` is where the last whole record ends (a record still
 * being written is read next time). `null` at the first line that is not a record, or as soon as
 * an unfinished line is longer than any record can be.
 */
export function readRecords(
  fd: number,
  from: number,
  to: number,
): { sessionIds: Set<string>; end: number } | null {
  const sessionIds = new Set<string>();
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let end = from;
  let filled = 0;
  while (end + filled < to) {
    const got = fs.readSync(
      fd,
      buffer,
      filled,
      Math.min(buffer.length - filled, to - end - filled),
      end + filled,
    );
    if (got === 0) break;
    filled += got;
    let start = 0;
    for (;;) {
      const newline = buffer.subarray(0, filled).indexOf(0x0a, start);
      if (newline === -1) break;
      const match = recordPattern.exec(buffer.toString("latin1", start, newline));
      if (match === null) return null;
      sessionIds.add(match[2] as string);
      start = newline + 1;
    }
    if (filled - start > MAX_RECORD_BYTES) return null;
    buffer.copy(buffer, 0, start, filled);
    end += start;
    filled -= start;
  }
  return { sessionIds, end };
}
