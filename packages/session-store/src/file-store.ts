import * as fs from "node:fs";
import { join } from "node:path";
import {
  assertSessionId,
  type BlobRef,
  type LockOwner,
  normalize,
  repairItems,
  type Session,
  SessionBusyError,
  type SessionEvent,
  type SessionEventDraft,
  type SessionHeader,
  SessionNotFoundError,
  TapedeckError,
} from "@tapedeck/session";
import { attachmentRef, blobThresholdOf, resolveBlobs } from "./blob-payloads";
import { BlobStore } from "./blob-store";
import { catalogEntry, type LogNames, listLogNames, scanFolder } from "./catalog";
import type { ChangeJournal } from "./change-journal";
import {
  appendTargetOf,
  compressLog,
  foldSegment,
  freezeLog,
  logExists,
  openForAppend,
  readColdLog,
} from "./cold-log";
import { readSegment } from "./cold-segment";
import { InvalidOffsetError, SessionHasForksError } from "./errors";
import { removeFile } from "./fs-util";
import {
  forgetTail,
  keepTailOfHash,
  plainTailed,
  readKeptTail,
  segmentedHash,
  segmentedTailed,
  type TailedLog,
  TailTarget,
  tailsDirOf,
  zstTailOf,
} from "./kept-tail";
import { keptTailsKind } from "./kept-tails-kind";
import { LeftoverTemps } from "./leftover-temps";
import { acquireLock, type HeldLock, liveLockOwner, releaseLock } from "./lock";
import {
  adoptLog,
  type CreatedLog,
  type CreateOptions,
  createLog,
  forkLog,
  type LogCreation,
} from "./log-creation";
import { readHeaderLine, replayLog } from "./log-file";
import { defaultHome, LogFolder } from "./log-folder";
import { readLogFileSync } from "./log-not-a-file";
import { estimateMoved, movePayloads, storeMovedPayloads } from "./log-payloads";
import { replayLogSync } from "./log-replay-sync";
import { NewLogs } from "./new-logs";
import { readEvents } from "./read-events";
import type {
  AppendOptions,
  ChangeSet,
  CompactOptions,
  CompactResult,
  Durability,
  ImportedHeaderOptions,
  LogEntry,
  LogOffset,
  LogReader,
  RepairReport,
  ResumedSession,
  ScanResult,
  SessionListing,
  SessionStore,
  SessionStoreOptions,
  SessionWriter,
} from "./session-store";
import { moveTornTail, moveToTrash, sidecarPathOf } from "./set-aside";
import { emptyTrash, type StoreStorageKind, storeStorageKinds } from "./storage-kinds";
import { FileSessionWriter, type KeptTailSession } from "./writer";
import { compressBytes } from "./zstd";

/** The agent written into new headers when the options name none. */
export const defaultAgent = { name: "tapedeck", version: "0.1.0" } as const;

/**
 * The JSONL session store. See {@link SessionStore} for the contract and
 * `architecture/session-store.md` for the lock, fsync, torn-tail and fork decisions.
 */
export function createSessionStore(options: SessionStoreOptions = {}): SessionStore {
  return new FileSessionStore(options);
}

class FileSessionStore implements SessionStore {
  readonly home: string;
  readonly sessionsDir: string;
  private readonly locksDir: string;
  private readonly trashDir: string;
  /** Where writers keep the state they ended with (`kept-tail.ts`). */
  private readonly tailsDir: string;
  private readonly durability: Durability;
  private readonly agent: { name: string; version: string };
  private readonly now: () => Date;
  private readonly journal: ChangeJournal;
  private readonly folder: LogFolder;
  private readonly pathOfBound = (sessionId: string) => this.pathOf(sessionId);
  private readonly newLogs: NewLogs;
  private readonly creation: LogCreation;
  private readonly leftovers: LeftoverTemps;
  /** The home's blob store (`<home>/blobs`). */
  readonly blobs: BlobStore;
  /** Payloads of at least this many UTF-8 bytes go to blobs. */
  private readonly threshold: number;

  constructor(options: SessionStoreOptions) {
    if (options.durability !== undefined && !["turn", "every-event"].includes(options.durability)) {
      throw new TapedeckError(
        "INVALID_OPTIONS",
        `durability must be "turn" or "every-event", not ${JSON.stringify(options.durability)}`,
      );
    }
    // Readers by position read back a payload kept in a blob from this store's blobs.
    this.folder = new LogFolder(
      options.home ?? defaultHome(),
      options.journalMaxBytes,
      (event, id) => resolveBlobs(event, this.blobs, { sessionId: id }),
    );
    this.home = this.folder.home;
    this.sessionsDir = this.folder.sessionsDir;
    this.locksDir = this.folder.locksDir;
    this.trashDir = join(this.home, "trash");
    this.tailsDir = tailsDirOf(this.home);
    this.durability = options.durability ?? "turn";
    this.agent = options.agent ?? { ...defaultAgent };
    this.now = options.now ?? (() => new Date());
    this.onWarning =
      options.onWarning ?? ((message) => process.stderr.write(`tapedeck: ${message}\n`));
    this.journal = this.folder.journal;
    this.blobs = new BlobStore(this.home);
    this.threshold = blobThresholdOf(options.blobThreshold);
    this.leftovers = new LeftoverTemps(this.sessionsDir);
    this.newLogs = new NewLogs(this.sessionsDir, this.home, this.pathOfBound, this.leftovers);
    this.creation = {
      agent: this.agent,
      now: this.now,
      journal: this.journal,
      newLogs: this.newLogs,
      payloads: { blobs: this.blobs, threshold: this.threshold },
    };
  }

  private readonly onWarning: (message: string) => void;
  private readonly warned = new Set<string>();

  /** One warning per entry and store, not one per listing (the viewer lists every second). */
  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.onWarning(message);
  }

  pathOf(sessionId: string): string {
    return this.folder.pathOf(sessionId);
  }

  private lockPathOf(sessionId: string): string {
    return join(this.locksDir, `${assertSessionId(sessionId)}.lock`);
  }

  /** Throws `SessionNotFoundError` unless the log exists. Creates nothing. */
  private assertExists(sessionId: string): string {
    const path = this.pathOf(sessionId);
    if (!logExists(path)) throw new SessionNotFoundError(sessionId);
    return path;
  }

  private takeLock(sessionId: string): HeldLock {
    return acquireLock(this.lockPathOf(sessionId), sessionId, this.home);
  }

  async create(options: CreateOptions): Promise<CreatedLog> {
    return createLog(this.creation, options);
  }

  adoptLog(
    text: string,
    options: { workspaceId?: string } = {},
  ): Promise<{ sessionId: string; header: SessionHeader }> {
    return adoptLog(this.creation, text, options, (parentId) => this.readSession(parentId));
  }

  syncLogs(sessionIds: readonly string[]): Promise<void> {
    // The blobs the new logs name reach the disk no later than the logs.
    this.blobs.flush();
    return this.newLogs.sync(sessionIds);
  }

  async append(
    sessionId: string,
    drafts: readonly SessionEventDraft[],
    options?: AppendOptions,
  ): Promise<SessionEvent[]> {
    const writer = await this.openWriter(sessionId);
    try {
      return await writer.append(drafts, options);
    } finally {
      await writer.close();
    }
  }

  async openWriter(sessionId: string): Promise<SessionWriter> {
    const path = this.assertExists(sessionId);
    const lock = this.takeLock(sessionId);
    try {
      // Recorded before anything is appended: a reader that misses this line sees the lock file.
      this.journal.record("o", sessionId);
      // In the background, off the append path: a blob's write then makes no folder (storage.md).
      if (Number.isFinite(this.threshold)) void this.blobs.makeShardsAhead();
      // A cold log stays as it is: the writer appends to its segment (`cold-segment.ts`) and
      // continues from the tail `compact` kept, reading nothing of the `.zst` but its last bytes.
      const { fd, target, created } = openForAppend(path, sessionId);
      const segmentOf =
        target.coldPath === undefined
          ? undefined
          : { base: target.base, tailed: segmentedTailed(target.coldPath, target.base, fd) };
      let session: Session | KeptTailSession;
      try {
        session = await this.continuedSession(sessionId, segmentOf?.tailed ?? plainTailed(fd));
      } catch (error) {
        fs.closeSync(fd);
        // A refused open (damage found by the replay) leaves no empty segment behind.
        if (created) removeFile(target.path);
        throw error;
      }
      return new FileSessionWriter({
        session,
        tailsDir: this.tailsDir,
        fd,
        ...(segmentOf === undefined ? {} : { segmentOf }),
        path: target.path,
        home: this.home,
        lock,
        durability: this.durability,
        now: this.now,
        ...(this.creation.payloads === undefined ? {} : { payloads: this.creation.payloads }),
        // After the last append, before the lock goes: readers that saw the lock come back once.
        beforeRelease: () => this.journal.record("c", sessionId),
      });
    } catch (error) {
      releaseLock(lock);
      throw error;
    }
  }

  /**
   * What a writer continues from: the kept tail when it describes log `log` (size and hash of its
   * last bytes, checked under the lock), else the replayed session.
   */
  private async continuedSession(
    sessionId: string,
    log: TailedLog,
  ): Promise<Session | KeptTailSession> {
    const kept = readKeptTail(this.tailsDir, sessionId, log);
    if (kept === undefined) return (await replayLog(this.pathOfBound, sessionId)).session;
    const size = log.size();
    const path = this.pathOf(sessionId);
    return {
      tail: new TailTarget(sessionId, kept),
      // The log as it was at open (the writer adds its own appends): by path, so that it still
      // reads after the writer closed.
      read: () =>
        replayLogSync(this.pathOfBound, sessionId, {
          bytes: readLogFileSync(path, sessionId).subarray(0, size),
        }),
      load: async () => (await replayLog(this.pathOfBound, sessionId, { limit: size })).session,
    };
  }

  async readHeader(sessionId: string): Promise<SessionHeader> {
    return (await readHeaderLine(this.pathOf(sessionId), sessionId)).header;
  }

  read(
    sessionId: string,
    options: { fromOffset?: LogOffset; fromLine?: number; tornTail?: "throw" | "stop" } = {},
  ) {
    const path = this.pathOf(sessionId);
    const { fromOffset, fromLine, tornTail = "throw" } = options;
    if (tornTail !== "throw" && tornTail !== "stop") {
      throw new TapedeckError("INVALID_OPTIONS", `tornTail must be "throw" or "stop"`);
    }
    if (fromOffset !== undefined && (!Number.isSafeInteger(fromOffset) || fromOffset < 0)) {
      throw new InvalidOffsetError(`fromOffset must be a byte offset ≥ 0, not ${fromOffset}`);
    }
    if (fromLine !== undefined && (!Number.isSafeInteger(fromLine) || fromLine < 2)) {
      throw new InvalidOffsetError(`fromLine must be a line number ≥ 2, not ${fromLine}`);
    }
    return readEvents(path, sessionId, {
      fromOffset,
      fromLine,
      stopAtTornTail: tornTail === "stop",
    });
  }

  async readSession(sessionId: string): Promise<Session> {
    this.pathOf(sessionId);
    return (await replayLog(this.pathOfBound, sessionId)).session;
  }

  async resumeSession(sessionId: string): Promise<ResumedSession> {
    this.assertExists(sessionId);
    let replayed = await replayLog(this.pathOfBound, sessionId, { allowTornTail: true });
    if (replayed.tornTail !== undefined) {
      await this.repair(sessionId);
      replayed = await replayLog(this.pathOfBound, sessionId);
    }
    const { session } = replayed;
    const synthesizedEvents = normalize(session);
    return {
      session,
      history: [...session.history(), ...repairItems(synthesizedEvents)],
      synthesizedEvents,
    };
  }

  async list(): Promise<SessionListing[]> {
    const { logs } = await this.scan();
    const listings: SessionListing[] = [];
    for (const log of logs) {
      // Damaged headers are skipped, not fatal.
      if (log.header === undefined) continue;
      listings.push({
        sessionId: log.sessionId,
        header: log.header,
        size: log.size,
        modifiedAt: log.modifiedAt,
      });
    }
    return listings;
  }

  async scan(): Promise<ScanResult> {
    const listed = await this.listFolder();
    return scanFolder(this.sessionsDir, listed, (path, message) => this.warnOnce(path, message));
  }

  async sessionIds(): Promise<string[]> {
    return (await this.listFolder()).ids;
  }

  /** Lists the sessions folder; the first listing that shows temp files sweeps the leftovers. */
  private async listFolder(): Promise<LogNames> {
    const listed = await listLogNames(this.sessionsDir);
    if (listed.temps.length > 0) await this.leftovers.sweep(listed.temps);
    return listed;
  }

  entry(sessionId: string): LogEntry | null {
    return catalogEntry(this.pathOf(sessionId), sessionId);
  }

  hasLog(sessionId: string): boolean {
    return logExists(this.pathOf(sessionId));
  }

  async changesSince(cursor?: string | null): Promise<ChangeSet> {
    const read = this.folder.journalChanges(cursor);
    if (!read.ok) {
      const { logs, skipped } = await this.scan();
      return { kind: "scan", reason: read.reason, cursor: read.cursor, logs, skipped };
    }
    if (read.folderChanged) read.changes.present = await this.sessionIds();
    return read.changes;
  }

  watch(listener: (sessionId: string | null) => void): (() => void) | null {
    return this.folder.watch(listener);
  }

  announceChange(sessionId: string): void {
    this.journal.record("n", assertSessionId(sessionId));
  }

  openLogReader(sessionId: string): LogReader | null {
    return this.folder.openLogReader(sessionId);
  }

  async repair(sessionId: string): Promise<RepairReport> {
    const path = this.assertExists(sessionId);
    const lock = this.takeLock(sessionId);
    try {
      const replayed = await replayLog(this.pathOfBound, sessionId, { allowTornTail: true });
      const tail = replayed.tornTail;
      if (tail === undefined) {
        return { sessionId, action: "none", bytesMoved: 0, size: replayed.end };
      }
      // A plain log's, or a cold log's segment's (a `.zst` was whole when it was compressed).
      const target = appendTargetOf(path, sessionId);
      if (tail.offset < target.base) {
        throw new TapedeckError(
          "COLD_LOG_CORRUPT",
          `session ${sessionId}: a torn tail at byte ${tail.offset} lies in its compressed log`,
        );
      }
      const sidecarPath = sidecarPathOf(path, tail.offset, this.now());
      this.journal.record("r", sessionId);
      moveTornTail(
        target.path,
        { offset: tail.offset - target.base, bytes: tail.bytes },
        sidecarPath,
      );
      return {
        sessionId,
        action: "moved-torn-tail",
        bytesMoved: tail.bytes,
        sidecarPath,
        size: tail.offset,
      };
    } finally {
      releaseLock(lock);
    }
  }

  async fork(
    sessionId: string,
    options: { atSeq?: number; cwd?: string } & ImportedHeaderOptions = {},
  ): Promise<CreatedLog> {
    this.assertExists(sessionId);
    const parent = (await replayLog(this.pathOfBound, sessionId)).session;
    return forkLog(this.creation, sessionId, parent, options);
  }

  async delete(sessionId: string): Promise<void> {
    this.assertExists(sessionId);
    const lock = this.takeLock(sessionId);
    try {
      const forks = (await this.list())
        .filter((listing) => listing.header.parent?.sessionId === sessionId)
        .map((listing) => listing.sessionId);
      if (forks.length > 0) {
        throw new SessionHasForksError(sessionId, forks);
      }
      this.journal.record("d", sessionId);
      forgetTail(this.tailsDir, sessionId);
      moveToTrash(this.sessionsDir, this.trashDir, sessionId);
    } finally {
      releaseLock(lock);
    }
  }

  async compact(sessionId: string, options: CompactOptions = {}): Promise<CompactResult> {
    const path = this.assertExists(sessionId);
    if (!fs.existsSync(path)) return this.foldCold(sessionId, path, options);
    const olderThanMs = options.olderThanMs ?? 0;
    const age = this.now().getTime() - fs.statSync(path).mtimeMs;
    // Without an age limit every log qualifies: a file's mtime can run a little ahead of Date.now().
    if (olderThanMs > 0 && age < olderThanMs) {
      return { sessionId, action: "recent", before: 0, after: 0 };
    }
    if (options.dryRun) {
      const plain = fs.readFileSync(path);
      const moved = movePayloads(plain, this.threshold);
      return {
        sessionId,
        action: "compressed",
        before: plain.length,
        after: compressLog(moved.bytes).length + estimateMoved(moved, this.blobs),
      };
    }
    const lock = this.compactLock(sessionId);
    if (lock === undefined) return { sessionId, action: "busy", before: 0, after: 0 };
    try {
      // Only a log that replays whole is compressed: damage stays where repair can reach it.
      const replayed = await replayLog(this.pathOfBound, sessionId);
      this.journal.record("r", sessionId);
      forgetTail(this.tailsDir, sessionId);
      // Large inline payloads go to blobs (stored for good first), then the log is compressed.
      const plain = fs.readFileSync(path);
      const moved = movePayloads(plain, this.threshold);
      const added = storeMovedPayloads(moved, this.blobs);
      const frozen = freezeLog(path, moved.moved > 0 ? moved.bytes : undefined);
      // The next writer appends to a segment beside the `.zst`: its tail lets that writer
      // continue without a replay. Kept once the compressed log is on disk for good and the plain
      // one gone, and only when the replay read the bytes compressed (a program that holds no
      // lock may append).
      if (replayed.end === plain.length && frozen.before === plain.length) {
        this.keepColdTail(sessionId, frozen.stored.length, frozen.compressed, replayed.session);
      }
      return {
        sessionId,
        action: "compressed",
        before: frozen.before,
        after: frozen.after + added,
      };
    } finally {
      releaseLock(lock);
    }
  }

  /** The session's lock for `compact`; `undefined` when a writer holds it. */
  private compactLock(sessionId: string): HeldLock | undefined {
    try {
      return this.takeLock(sessionId);
    } catch (error) {
      if (SessionBusyError.isInstance(error)) return undefined;
      throw error;
    }
  }

  /** Keeps the tail of a cold log just written (`compressed`, `size` plain bytes), no segment. */
  private keepColdTail(sessionId: string, size: number, compressed: Buffer, session: Session) {
    const hash = segmentedHash(compressed.length, zstTailOf(compressed), Buffer.alloc(0));
    keepTailOfHash(this.tailsDir, sessionId, size, hash, session.invariantSnapshot());
  }

  /**
   * `compact` of a cold log: its segment (what writers appended since) folded into a new `.zst`,
   * its large inline payloads moved to blobs first; `already-compressed` when it has none.
   */
  private async foldCold(
    sessionId: string,
    path: string,
    options: CompactOptions,
  ): Promise<CompactResult> {
    const none = { sessionId, before: 0, after: 0 };
    const target = appendTargetOf(path, sessionId);
    const coldPath = target.coldPath as string;
    const segment = fs.statSync(target.path, { throwIfNoEntry: false });
    if (segment === undefined || segment.size === 0) {
      return { ...none, action: "already-compressed" };
    }
    const olderThanMs = options.olderThanMs ?? 0;
    if (olderThanMs > 0 && this.now().getTime() - segment.mtimeMs < olderThanMs) {
      return { ...none, action: "recent" };
    }
    const zstBytes = fs.statSync(coldPath).size;
    const joined = () => {
      const old = readColdLog(coldPath) as Buffer;
      const plain = Buffer.concat([old, readSegment(coldPath, target.base)]);
      // The `.zst`'s bytes stay as they are: only the segment's lines may change.
      return { plain, moved: movePayloads(plain, this.threshold, target.base) };
    };
    if (options.dryRun) {
      // An estimate that reads the segment only (`tapedeck storage` asks for every session): the
      // `.zst` as it is, plus the segment compressed on its own.
      const moved = movePayloads(readSegment(coldPath, target.base), this.threshold, 0);
      return {
        ...none,
        action: "compressed",
        before: zstBytes + segment.size,
        after: zstBytes + compressBytes(moved.bytes).length + estimateMoved(moved, this.blobs),
      };
    }
    const lock = this.compactLock(sessionId);
    if (lock === undefined) return { ...none, action: "busy" };
    try {
      // Only a log that replays whole is folded: a damaged segment stays for repair.
      const replayed = await replayLog(this.pathOfBound, sessionId);
      const { plain, moved } = joined();
      this.journal.record("r", sessionId);
      forgetTail(this.tailsDir, sessionId);
      const added = storeMovedPayloads(moved, this.blobs);
      const before = zstBytes + fs.statSync(target.path).size;
      const folded = foldSegment(path, sessionId, moved.bytes, segment.mtimeMs);
      if (replayed.end === plain.length) {
        this.keepColdTail(sessionId, folded.plainSize, folded.compressed, replayed.session);
      }
      return { ...none, action: "compressed", before, after: folded.after + added };
    } finally {
      releaseLock(lock);
    }
  }

  storageKinds(): StoreStorageKind[] {
    return storeStorageKinds({
      sessionsDir: this.sessionsDir,
      trashDir: this.trashDir,
      blobs: this.blobs,
      tails: keptTailsKind(this.tailsDir, (sessionId) => this.hasLog(sessionId)),
    });
  }

  emptyTrash(options: { dryRun: boolean }): { bytes: number; files: number } {
    const emptied = emptyTrash(this.trashDir, options);
    // `delete` forgot their tails; one a crash or an older program left goes with them.
    if (!options.dryRun) {
      for (const sessionId of emptied.sessionIds) {
        if (!this.hasLog(sessionId)) forgetTail(this.tailsDir, sessionId);
      }
    }
    return { bytes: emptied.bytes, files: emptied.files };
  }

  putBlob(data: Uint8Array, options: { mediaType: string; durable?: boolean }): BlobRef {
    const ref = attachmentRef(data, options.mediaType);
    this.blobs.put(data, ref.blob, { durable: options.durable !== false });
    return ref;
  }

  readBlob(hash: string): Buffer {
    return this.blobs.get(hash);
  }

  async lockOwner(sessionId: string): Promise<LockOwner | undefined> {
    return liveLockOwner(this.lockPathOf(sessionId));
  }
}
