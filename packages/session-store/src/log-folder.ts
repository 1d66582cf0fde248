/**
 * The read side of a home's folder that needs neither the log's schemas nor the writers: where
 * logs are, reading lines by position, and what the change journal says changed. The store
 * (`file-store.ts`) is built on it; a reader that only asks "did anything change since my cursor,
 * and what are these lines" (a search on a fresh index, issue #12) uses it alone and never loads
 * the rest of the store.
 */
import * as fs from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { SessionEvent } from "@tapedeck/session";
import { assertSessionId, InvalidSessionIdError, TapedeckError } from "@tapedeck/session/core";
import { ChangeJournal } from "./change-journal";
import { openSegmentedLog, parseSegmentName } from "./cold-segment";
import { fileStats, hasErrorCode } from "./fs-util";
import { type ChangeCursor, cursorOf, parseChangeCursor } from "./journal-format";
import { isLocksTempLabel, LeftoverTemps, mayBeTempName } from "./leftover-temps";
import { sessionIdOfFileName } from "./log-names";
import { hasBlobRef } from "./payload-fields";
import type { ChangeScanReason, ChangeSet, LogReader } from "./session-store";

/**
 * How a log is opened for reads by position: `O_NOFOLLOW` (a link is refused, its target never
 * read), `O_NONBLOCK` (a FIFO opens at once instead of waiting for a writer; no effect on the
 * reads of a regular file).
 */
const READER_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * The Tapedeck home: `TAPEDECK_HOME` of `env` (blank counts as unset), else `~/.tapedeck`, as an
 * absolute path. The one place the default home is decided (the agent's config and the host's
 * reading commands both ask here).
 */
export function defaultHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnvironment = env.TAPEDECK_HOME?.trim();
  return fromEnvironment !== undefined && fromEnvironment !== ""
    ? resolve(fromEnvironment)
    : join(homedir(), ".tapedeck");
}

/**
 * What the journal alone says changed since a cursor (see {@link LogFolder.journalChanges}):
 * either a journal change set (`folderChanged`: the folder's entries changed too, so the store
 * adds the ids present), or a reason to scan the folder instead.
 */
export type JournalChanges =
  | { ok: true; changes: Extract<ChangeSet, { kind: "journal" }>; folderChanged: boolean }
  | { ok: false; reason: ChangeScanReason; cursor: ChangeCursor | null };

/**
 * How close to the folder's mtime a stamp is racy: a change within the same timestamp tick leaves
 * the mtime unchanged. Linux stamps files from a clock that advances once a jiffy (≤ 10 ms, and
 * lags the real time by up to one), hence 25 ms; file systems that keep whole seconds, 2 s.
 */
const RACY_MS = 25;
const COARSE_RACY_MS = 2000;
/** The mark of a racy folder stamp. */
const RACY = ".r";

/** A home's sessions folder, its locks and its change journal, read without the store. */
export class LogFolder {
  readonly home: string;
  readonly sessionsDir: string;
  readonly locksDir: string;
  readonly journal: ChangeJournal;
  /** Temp files of lock files a killed process left, removed when the locks are first listed. */
  private readonly lockLeftovers: LeftoverTemps;

  /**
   * `payloads`: how readers read back a payload kept in a blob (the full store passes its blob
   * store's); without it such an event is refused (`BLOB_NOT_LOADED`).
   */
  constructor(
    home: string,
    journalMaxBytes?: number,
    private readonly payloads: PayloadReader = noPayloadReader,
  ) {
    this.home = resolve(home);
    this.sessionsDir = join(this.home, "sessions");
    this.locksDir = join(this.home, "locks");
    this.journal = new ChangeJournal(this.home, journalMaxBytes);
    this.lockLeftovers = new LeftoverTemps(this.locksDir, isLocksTempLabel);
  }

  /** The log file of a session. @throws InvalidSessionIdError for anything but a session id. */
  pathOf(sessionId: string): string {
    if (typeof sessionId !== "string") throw new InvalidSessionIdError(String(sessionId));
    return join(this.sessionsDir, `${assertSessionId(sessionId)}.jsonl`);
  }

  /**
   * The sessions that may have changed since `cursor`, from the journal (see
   * `SessionStore.changesSince`, which scans when this says it cannot answer).
   */
  journalChanges(cursor?: string | null): JournalChanges {
    // Both stamps are taken before anything is read: what changes meanwhile is named next time.
    const folder = this.folderStamp();
    const read = this.journal.readSince(cursor ?? undefined);
    if (!read.ok) {
      const next = read.cursor === null ? null : withFolder(read.cursor, folder);
      return { ok: false, reason: read.reason, cursor: next };
    }
    const ids = read.sessionIds;
    for (const id of this.lockedSessionIds()) ids.add(id);
    return {
      ok: true,
      changes: {
        kind: "journal",
        cursor: withFolder(read.cursor, folder),
        sessionIds: [...ids].sort(),
      },
      // Files created, renamed or removed by other programs change the folder, not the journal.
      folderChanged: folder !== read.folder || read.folder.endsWith(RACY),
    };
  }

  /**
   * Opens a log for reads by position; `null` when it does not exist or is not a regular file
   * (a link, FIFO, folder… put in its place by hand: never followed, waited at or read, as
   * everywhere in the store; the next sync forgets the session).
   */
  openLogReader(sessionId: string): LogReader | null {
    let fd: number;
    try {
      fd = fs.openSync(this.pathOf(sessionId), READER_FLAGS);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) {
        return coldLogReader(this.pathOf(sessionId), sessionId, this.payloads);
      }
      if (hasErrorCode(error, "ELOOP")) return null;
      if (hasErrorCode(error, "ENXIO")) return null;
      throw error;
    }
    if (!fileStats(fd)?.isFile()) {
      fs.closeSync(fd);
      return null;
    }
    let open = true;
    return {
      withPayload: payloadOf(this.payloads, sessionId),
      readAt(offset, length) {
        const buffer = Buffer.allocUnsafe(length);
        return fs.readSync(fd, buffer, 0, length, offset) === length ? buffer : null;
      },
      readInto(target, targetOffset, offset, length) {
        return fs.readSync(fd, target, targetOffset, length, offset) === length;
      },
      close() {
        if (open) fs.closeSync(fd);
        open = false;
      },
    };
  }

  /**
   * The sessions folder's inode and mtime: any entry created, renamed or removed changes it. An
   * mtime has the file system's granularity (a clock tick, or a whole second), so a change made
   * in the same tick as this look leaves it as it was: a stamp taken within {@link RACY_MS} of the
   * folder's mtime is marked racy, and a cursor carrying one lists the folder next time.
   */
  private folderStamp(): string {
    const stat = fs.statSync(this.sessionsDir, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined) return "none";
    const stamp = `${stat.ino.toString(36)}.${stat.mtimeNs.toString(36)}`;
    const age = Date.now() - Number(stat.mtimeNs / 1_000_000n);
    // Whole seconds: a file system that keeps no more (ext3, HFS+), else a clock tick (≤ 10 ms).
    const tick = stat.mtimeNs % 1_000_000_000n === 0n ? COARSE_RACY_MS : RACY_MS;
    return age < tick ? `${stamp}${RACY}` : stamp;
  }

  /** Sessions with a lock file, live or stale: a writer may still be appending (or died doing so). */
  private lockedSessionIds(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.locksDir);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return [];
      throw error;
    }
    const temps = names.filter(mayBeTempName);
    if (temps.length > 0) void this.lockLeftovers.sweep(temps);
    return names
      .filter((name) => name.endsWith(".lock"))
      .map((name) => name.slice(0, -".lock".length))
      .filter((id) => sessionIdOfFileName(`${id}.jsonl`) !== undefined);
  }

  /**
   * Calls `listener` soon after a log of the folder changes (its id; `null`: unknown which); `null`
   * when the folder cannot be watched. See `SessionStore.watch`.
   */
  watch(listener: (sessionId: string | null) => void): (() => void) | null {
    let watcher: fs.FSWatcher;
    try {
      // Not persistent: a watch alone never keeps the process alive.
      watcher = fs.watch(this.sessionsDir, { persistent: false });
    } catch (error) {
      if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOSPC")) return null;
      throw error;
    }
    watcher.on("change", (_kind, name) => {
      if (name === null) listener(null);
      else {
        // A cold log's segment grows as its session does.
        const sessionId =
          sessionIdOfFileName(String(name)) ?? parseSegmentName(String(name))?.sessionId;
        if (sessionId !== undefined) listener(sessionId);
      }
    });
    // A watch that fails (the folder removed, the watch limit reached) just goes quiet.
    watcher.on("error", () => watcher.close());
    return () => watcher.close();
  }
}

function withFolder(cursor: ChangeCursor, folder: string): ChangeCursor {
  const parsed = parseChangeCursor(cursor);
  return parsed === null ? cursor : cursorOf(parsed.generation, parsed.offset, folder);
}

/**
 * A {@link LogReader} over a cold log and its segment, the `.zst` decompressed as it is read
 * (forward from where it is, or again from the nearest frame start for a read behind it); `null`
 * when there is none.
 */
function coldLogReader(path: string, sessionId: string, payloads: PayloadReader): LogReader | null {
  const log = openSegmentedLog(path, sessionId);
  if (log === undefined) return null;
  const readInto = (target: Uint8Array, targetOffset: number, offset: number, length: number) => {
    if (offset + length > log.size) return false;
    let done = 0;
    while (done < length) {
      const count = log.read(target, targetOffset + done, length - done, offset + done);
      if (count === 0) return false;
      done += count;
    }
    return true;
  };
  return {
    withPayload: payloadOf(payloads, sessionId),
    readAt(offset, length) {
      const buffer = Buffer.allocUnsafe(length);
      return readInto(buffer, 0, offset, length) ? buffer : null;
    },
    readInto,
    close() {
      log.close();
    },
  };
}

/**
 * How a {@link LogFolder}'s readers read back a payload kept in a blob (`event` names one):
 * the full store's blob store. A folder opened without one (the fresh search's, whose bundle
 * leaves the blob store out) refuses such an event with `BLOB_NOT_LOADED`, so its caller can hand
 * the question to code that has the blob store.
 */
export type PayloadReader = (event: SessionEvent, sessionId: string) => SessionEvent;

const noPayloadReader: PayloadReader = (event, sessionId) => {
  throw new TapedeckError(
    "BLOB_NOT_LOADED",
    `event ${event.seq} of session ${sessionId} keeps its payload in a blob, and this reader has no blob store`,
  );
};

/** {@link LogReader.withPayload} of a reader of session `sessionId`. */
function payloadOf(read: PayloadReader, sessionId: string): (event: SessionEvent) => SessionEvent {
  return (event) => (hasBlobRef(event) ? read(event, sessionId) : event);
}
