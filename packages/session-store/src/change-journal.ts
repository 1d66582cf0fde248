/**
 * The change journal: an append-only file in the home naming the sessions whose logs may have
 * changed, so that a reader that keeps state (the index, the viewer, a push) looks only at those
 * instead of stating every log. It is a hint, never the truth: whatever a reader cannot trust
 * (missing, damaged, rotated, shorter than the cursor) sends it back to a full scan.
 *
 * Layout, records and cursors: `journal-format.ts`. Every record is one `write()` of ≤ 40 bytes to an `O_APPEND` descriptor, so concurrent writers
 * never interleave within a line.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { TapedeckError } from "@tapedeck/session/core";
import {
  faultWriting,
  fileStats,
  hasErrorCode,
  makeDirectories,
  randomHex,
  tempPathBeside,
  writeAll,
  writeTemp,
} from "./fs-util";
import {
  type ChangeCursor,
  cursorOf,
  headerOf,
  type JournalRecordKind,
  MAGIC,
  parseChangeCursor,
  READ_CHUNK_BYTES,
  readRecords,
} from "./journal-format";
import { LeftoverTemps } from "./leftover-temps";
import type { ChangeScanReason } from "./session-store";

/** File name of the journal in the home. */
export const JOURNAL_FILE = "changes.journal";

/** Size after which the next writer starts a new generation (≈ 100,000 records). */
export const DEFAULT_JOURNAL_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Opening the journal: never through a link (`ELOOP`), never waiting on a FIFO (`O_NONBLOCK`;
 * `headerOf` then finds it is not a regular file). Writers open it for reading too (the header).
 */
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
const APPEND_FLAGS =
  fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
/**
 * How many times the rotation size a reader will read before it calls the journal damaged:
 * writers rotate at `maxBytes`, so only records that raced a rotation can lie past it.
 */
const READ_LIMIT_FACTOR = 4;

type ScanReason = ChangeScanReason;

/** The journal read from a cursor. */
export type JournalRead =
  | {
      ok: true;
      sessionIds: Set<string>;
      cursor: ChangeCursor;
      /** The folder stamp the cursor carried. */
      folder: string;
    }
  | { ok: false; reason: ScanReason; cursor: ChangeCursor | null };

/** How long a writer keeps the journal open after its last record (an import records per log). */
const KEEP_OPEN_MS = 200;

/** The journal of one home. Methods are synchronous: each is a handful of small syscalls. */
export class ChangeJournal {
  readonly path: string;
  /**
   * The journal as this writer last opened it, kept for the next record: an import writes one per
   * new log, and opening, checking the header and closing each time were 5 of its 7 syscalls.
   * `size`: the file's size after this writer's last record.
   */
  private kept: { fd: number; ino: bigint; size: number } | undefined;
  private lastUse = 0;
  private closer: NodeJS.Timeout | undefined;
  private readonly leftovers: LeftoverTemps;

  constructor(
    private readonly home: string,
    private readonly maxBytes = DEFAULT_JOURNAL_MAX_BYTES,
  ) {
    this.path = join(home, JOURNAL_FILE);
    this.leftovers = new LeftoverTemps(home, (label) => label === JOURNAL_FILE);
  }

  /**
   * Appends one record. Written before the change it announces (a crash after it and before the
   * change costs a reader one look at an unchanged log). If another writer rotated the journal
   * while this one was writing, the record is written again into the new generation.
   */
  record(kind: JournalRecordKind, sessionId: string): void {
    try {
      this.tryRecord(kind, sessionId);
    } catch (error) {
      throw faultWriting(error, this.path, this.home);
    }
  }

  private tryRecord(kind: JournalRecordKind, sessionId: string): void {
    const line = Buffer.from(`${kind} ${sessionId}\n`);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const kept = this.kept ?? this.keep(this.openForAppend());
      let current: fs.BigIntStats | undefined;
      try {
        writeAll(kept.fd, line);
        current = fileStats(this.path, { followLinks: true });
      } catch (error) {
        this.close();
        throw error;
      }
      // Still the live file, grown by the record: done. Otherwise the record went into a replaced
      // generation, or into a file rewritten in place since it was opened: open it again (which
      // checks its header, and replaces a damaged one) and write the record there.
      if (current !== undefined && current.ino === kept.ino && current.size > kept.size) {
        kept.size = Number(current.size);
        if (kept.size > this.maxBytes) {
          this.close();
          this.rotate(current.ino);
        } else this.closeLater();
        return;
      }
      this.close();
    }
    throw new TapedeckError(
      "JOURNAL_FAILED",
      `could not record a change of session ${sessionId} in ${this.path}: it kept being replaced`,
    );
  }

  /** Keeps `fd` (just opened by {@link openForAppend}) for the next records. */
  private keep(fd: number): { fd: number; ino: bigint; size: number } {
    try {
      const stat = fileStats(fd) as fs.BigIntStats;
      this.kept = { fd, ino: stat.ino, size: Number(stat.size) };
      return this.kept;
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /** Closes the kept descriptor once no record used it for {@link KEEP_OPEN_MS}. */
  private closeLater(): void {
    this.lastUse = Date.now();
    if (this.closer !== undefined) return;
    const check = () => {
      const idle = Date.now() - this.lastUse;
      if (idle >= KEEP_OPEN_MS) this.close();
      else this.closer = setTimeout(check, KEEP_OPEN_MS - idle).unref();
    };
    this.closer = setTimeout(check, KEEP_OPEN_MS).unref();
  }

  /** Closes the kept descriptor, if any. */
  close(): void {
    if (this.closer !== undefined) clearTimeout(this.closer);
    this.closer = undefined;
    const kept = this.kept;
    this.kept = undefined;
    if (kept !== undefined) fs.closeSync(kept.fd);
  }

  /**
   * The generation and size of the journal as it is now, creating it when missing (so that the
   * next call has something to continue from). `null` when it cannot be read or created.
   */
  position(): { generation: string; size: number } | null {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const header = this.readHeader();
      if (header === "missing") {
        try {
          this.createGeneration(undefined);
        } catch {
          return null;
        }
        continue;
      }
      return header === "damaged" ? null : header;
    }
    return null;
  }

  /** The sessions named after `cursor`, or why the journal cannot answer. */
  readSince(cursorText: string | undefined): JournalRead {
    // The header and the records through one descriptor: a writer that rotates the journal in
    // between would have the records read from the new generation at the old one's offsets.
    const fd = this.openForRead();
    if (fd === "missing") {
      const created = this.position();
      return {
        ok: false,
        reason: "missing",
        cursor: created && cursorOf(created.generation, created.size),
      };
    }
    if (fd === "damaged") return { ok: false, reason: "damaged", cursor: null };
    try {
      return this.readOpen(fd, cursorText);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** {@link readSince} on the journal open as `fd`. */
  private readOpen(fd: number, cursorText: string | undefined): JournalRead {
    const here = headerOf(fd);
    if (here === "damaged") return { ok: false, reason: "damaged", cursor: null };
    const now = cursorOf(here.generation, here.size);
    const cursor = cursorText === undefined ? null : parseChangeCursor(cursorText);
    if (cursor === null) return { ok: false, reason: "no-cursor", cursor: now };
    if (cursor.generation !== here.generation) return { ok: false, reason: "rotated", cursor: now };
    if (cursor.offset > here.size || cursor.offset < here.headerEnd) {
      return { ok: false, reason: "behind", cursor: now };
    }
    // A journal rotates at `maxBytes`: far more unread than that is not a journal any more (a
    // program wrote into it, a hole). Reading it would cost more than the scan it falls back to.
    if (here.size - cursor.offset > this.maxBytes * READ_LIMIT_FACTOR + READ_CHUNK_BYTES) {
      return { ok: false, reason: "damaged", cursor: now };
    }
    const records = readRecords(fd, cursor.offset, here.size);
    if (records === null) return { ok: false, reason: "damaged", cursor: now };
    return {
      ok: true,
      sessionIds: records.sessionIds,
      cursor: cursorOf(here.generation, records.end),
      folder: cursor.folder,
    };
  }

  private readHeader():
    | { generation: string; size: number; headerEnd: number }
    | "missing"
    | "damaged" {
    const fd = this.openForRead();
    if (typeof fd !== "number") return fd;
    try {
      return headerOf(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The journal open for reading, or why not (a link in its place is damage). */
  private openForRead(): number | "missing" | "damaged" {
    try {
      return fs.openSync(this.path, READ_FLAGS);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return "missing";
      if (hasErrorCode(error, "ELOOP")) return "damaged";
      throw error;
    }
  }

  /**
   * An `O_APPEND` descriptor on a journal with a valid header (created or replaced if needed).
   * Opened for reading too, so the header is checked through it: one open per record, not two.
   */
  private openForAppend(): number {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      let fd: number;
      try {
        fd = fs.openSync(this.path, APPEND_FLAGS);
      } catch (error) {
        if (hasErrorCode(error, "ELOOP")) {
          // A link in the journal's place: replaced, never written through.
          const link = fileStats(this.path);
          if (link !== undefined) this.rotate(link.ino);
          continue;
        }
        if (hasErrorCode(error, "EISDIR")) {
          // A folder in the journal's place (a file cannot be renamed over it): moved aside,
          // never deleted, and a new generation takes its place. Readers scanned meanwhile.
          this.moveFolderAside();
          continue;
        }
        if (!hasErrorCode(error, "ENOENT")) throw error;
        this.createGeneration(undefined);
        continue;
      }
      let inode: bigint;
      try {
        if (headerOf(fd) !== "damaged") return fd;
        inode = (fileStats(fd) as fs.BigIntStats).ino;
      } catch (error) {
        fs.closeSync(fd);
        throw error;
      }
      fs.closeSync(fd);
      this.rotate(inode);
    }
    throw new TapedeckError("JOURNAL_FAILED", `could not open the change journal ${this.path}`);
  }

  /**
   * Starts a new generation: a fresh file with a new header takes the journal's place atomically.
   * `replacing`: the inode this writer saw; when the file is no longer that one, another writer
   * already rotated it and nothing is done. Without it, the journal is created only if missing.
   */
  private createGeneration(replacing: bigint | undefined): void {
    makeDirectories(join(this.path, ".."));
    const temp = tempPathBeside(this.path);
    writeTemp(temp, Buffer.from(`${MAGIC}${randomHex(8)}\n`), false);
    try {
      if (replacing === undefined) {
        try {
          fs.linkSync(temp, this.path);
        } catch (error) {
          // Another process created it first: theirs is as good as ours.
          if (!hasErrorCode(error, "EEXIST")) throw error;
        }
      } else if (fileStats(this.path)?.ino === replacing) {
        fs.renameSync(temp, this.path);
      }
    } finally {
      fs.rmSync(temp, { force: true });
    }
    // Rare (a new home, a rotation): the one moment the home is listed, for the journal's temp
    // files a process killed right here left.
    void this.leftovers.sweep();
  }

  /** Renames a folder found in the journal's place to `changes.journal.folder-<time>`. */
  private moveFolderAside(): void {
    const aside = `${this.path}.folder-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    try {
      fs.renameSync(this.path, aside);
    } catch (error) {
      // Moved or replaced by another writer first.
      if (!hasErrorCode(error, "ENOENT") && !hasErrorCode(error, "EEXIST")) throw error;
    }
  }

  /** Replaces the journal whose inode is `inode` by a new generation (readers then scan once). */
  private rotate(inode: bigint): void {
    this.createGeneration(inode);
  }
}
