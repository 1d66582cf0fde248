import * as fs from "node:fs";
import {
  EventLogCorruptError,
  parseEvent,
  Session,
  type SessionEvent,
  type SessionEventDraft,
  TapedeckError,
  toStorageFault,
} from "@tapedeck/session";
import { externalize, type PayloadArena, scratchArena } from "./blob-payloads";
import type { BlobStore, BlobSyncs, StagedBlobs } from "./blob-store";
import { fsyncAsync, writeAll } from "./fs-util";
import { keepTail, plainTailed, type TailedLog, type TailTarget } from "./kept-tail";
import { type LineEncoder, scratchEncoder } from "./line-encoder";
import { type HeldLock, releaseLock } from "./lock";
import type { AppendOptions, Durability, SessionWriter } from "./session-store";

/** Where {@link applyDrafts} puts large payloads: the home's blob store, from `threshold` bytes. */
export interface PayloadSink {
  blobs: BlobStore;
  threshold: number;
  /** Memory for the payloads' bytes (views valid until the blobs are written). */
  arena?: PayloadArena;
  /** Staged blob files by their bytes: each payload's bytes are written before they are hashed. */
  staged?: StagedBlobs;
  /** Whether a staged file's fsync starts at once (else with the log's, at the batch's end). */
  syncStaged?: boolean;
}

/**
 * What {@link applyDrafts} validates drafts against: a replayed `Session`, or the invariants' state
 * a writer continued from (`TailTarget`).
 */
export type AppendTarget = Pick<Session, "sessionId" | "lastSeq" | "append">;

/**
 * A writer's start from a kept tail: the invariants' state, and how to read the log as it was at
 * open (synchronously for the `session` getter, asynchronously for `loadSession`).
 */
export interface KeptTailSession {
  tail: TailTarget;
  read: () => Session;
  load: () => Promise<Session>;
}

/** The blobs a batch of lines names (hash → bytes), to be stored before the lines are written. */
export type PendingBlobs = Map<string, Uint8Array>;

/**
 * Completes drafts into events (`seq` after `session.lastSeq`, `ts` from `now`), zod-validates
 * each, checks it against `session`, applies it and adds its line to `encoder` (the UTF-8 of
 * `JSON.stringify(event)` and "\n": a new log is one buffer, an append writes it line by line).
 * Returns the events. When a draft is invalid it throws, and the drafts before it stay applied to
 * `session`: callers that keep the session use {@link rollBack}. Payloads over `payloads`'
 * threshold are left out of the lines and added to `pending` (the caller stores them first).
 */
export function applyDrafts(
  session: AppendTarget,
  drafts: readonly SessionEventDraft[],
  now: () => Date,
  encoder: LineEncoder,
  options: AppendOptions = {},
  payloads?: PayloadSink,
  pending: PendingBlobs = new Map(),
): SessionEvent[] {
  const events: SessionEvent[] = [];
  const first = session.lastSeq + 1;
  try {
    for (const [index, draft] of drafts.entries()) {
      const seq = first + index;
      const ts = options.keepTimestamps === true ? draftTimestamp(draft, now) : now().toISOString();
      // seq and ts lead the line (as in the format's examples) and always win over the draft's.
      const completed: Record<string, unknown> = { seq, ts, ...draft };
      completed.seq = seq;
      completed.ts = ts;
      const event = parseEvent(completed);
      session.append(event);
      events.push(event);
      encoder.json(
        payloads === undefined
          ? event
          : externalize(
              event,
              payloads.threshold,
              pending,
              payloads.arena,
              payloads.staged === undefined
                ? undefined
                : (bytes) => {
                    const ready = payloads.blobs.stage(bytes, payloads.syncStaged !== false);
                    if (ready !== undefined) payloads.staged?.set(bytes, ready);
                  },
            ),
      );
    }
  } catch (error) {
    throw EventLogCorruptError.isInstance(error)
      ? error.withLocation({ sessionId: session.sessionId })
      : error;
  }
  return events;
}

/**
 * The encoder's lines: views into its buffer when nothing is awaited before they are written,
 * copies when `copy` (blobs are made durable first, and another writer of this thread may reuse
 * the buffer meanwhile).
 */
function linesOf(encoder: LineEncoder, copy: boolean): Uint8Array[] {
  const lines: Uint8Array[] = [];
  for (let index = 0; index < encoder.lineCount; index += 1) {
    const line = encoder.line(index);
    lines.push(copy ? Uint8Array.from(line) : line);
  }
  return lines;
}

const isoPattern = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d\.\d{3}Z$/;

/** The last `ts` found well-formed: an import's events share few times (a turn's, often one). */
let lastWellFormed = "";

/** The draft's own `ts` when it is a valid time (normalised to ISO-8601 UTC), else `now`. */
function draftTimestamp(draft: SessionEventDraft, now: () => Date): string {
  const given = (draft as { ts?: unknown }).ts;
  if (typeof given === "string") {
    if (given === lastWellFormed) return given;
    if (given.length === 24 && isoPattern.test(given)) {
      lastWellFormed = given;
      return given;
    }
    const time = Date.parse(given);
    if (Number.isFinite(time)) return new Date(time).toISOString();
  }
  return now().toISOString();
}

/**
 * `session` as it was at `lastSeq` (itself when nothing was applied since). Rebuilt from its own
 * events in memory; only the error path of a multi-event append pays for it.
 */
export function rollBack(session: Session, lastSeq: number): Session {
  if (session.lastSeq === lastSeq) return session;
  const copy = Session.create(session.sessionId, [], session.header);
  for (const event of session.events) {
    if (event.seq > lastSeq) break;
    copy.append(event);
  }
  return copy;
}

/** Events whose append is acknowledged durable under the `"turn"` policy: the log is fsynced. */
function isSyncPoint(event: Pick<SessionEvent, "type">): boolean {
  return event.type === "turn/end" || event.type === "approval/request";
}

/** True when a batch must be fsynced under the `"turn"` policy. */
function needsSync(events: readonly Pick<SessionEvent, "type">[]): boolean {
  return events.some(isSyncPoint);
}

/**
 * True when a line follows a sync point in the batch (an import's many turns in one append).
 * Replay takes a line after a sync point as proof that the point's fsyncs ended, blobs
 * included (`unfinished-blob-write.ts`); in one batch nothing was fsynced in between, so such a
 * batch stores its blobs, and waits for the earlier ones, before its lines are written.
 */
function linesAfterSyncPoint(events: readonly Pick<SessionEvent, "type">[]): boolean {
  return events.slice(0, -1).some(isSyncPoint);
}

/**
 * The store's writer: holds the lock and an `O_APPEND` descriptor for the whole run. A failed
 * write (disk full, quota, I/O error) is cut back off the file, so the log stays whole, and is
 * kept: every later call throws that first error again, whose message names the cause and file.
 */
export class FileSessionWriter implements SessionWriter {
  readonly sessionId: string;
  /** The replayed session; `undefined` while the writer continues from a kept tail. */
  private current: Session | undefined;
  /** The kept tail the writer continues from, until the whole session is asked for. */
  private tail: TailTarget | undefined;
  /** Reads the log as it was when the writer opened (see {@link FileSessionWriter.session}). */
  private readonly readOpened: (() => Session) | undefined;
  /** The same, reading asynchronously (see {@link FileSessionWriter.loadSession}). */
  private readonly loadOpened: (() => Promise<Session>) | undefined;
  /** Where the state is kept at close (absent: not kept). */
  private readonly tailsDir: string | undefined;
  private readonly fd: number;
  private readonly path: string;
  private readonly home: string;
  /** Bytes in the file after the last complete append. */
  private size: number;
  /** Bytes of the log before the file (a cold log's `.zst`, when the file is its segment). */
  private readonly base: number;
  /** What the kept tail hashes. */
  private readonly tailed: TailedLog;
  private readonly lock: HeldLock;
  private readonly durability: Durability;
  private readonly now: () => Date;
  private readonly payloads: PayloadSink | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Fsyncs of blobs written since the log's last fsync, each settled to its error or undefined. */
  private blobSyncs: Promise<unknown>[] = [];
  /** Blobs of this batch whose fsyncs start with the log's (the batch ends at a sync point). */
  private deferredSyncs: BlobSyncs[] = [];
  private closed = false;
  private failure: Error | undefined;
  private readonly beforeRelease: (() => void) | undefined;

  constructor(options: {
    /** The replayed session, or the kept tail and how to read the whole log when asked. */
    session: Session | KeptTailSession;
    /** The log, open for appending and reading (the kept tail hashes its last bytes). */
    fd: number;
    /**
     * When `fd` is a cold log's segment (`cold-segment.ts`): the `.zst`'s plain bytes before it,
     * and what the kept tail hashes. Absent: `fd` is the whole log.
     */
    segmentOf?: { base: number; tailed: TailedLog };
    /** The log's path (named in errors). */
    path: string;
    /** The Tapedeck home (named when it is read-only). */
    home: string;
    lock: HeldLock;
    durability: Durability;
    now: () => Date;
    /** Where large payloads go (absent: every payload inline). */
    payloads?: PayloadSink;
    /** Runs after the last append reached the disk, before the lock is released. */
    beforeRelease?: () => void;
    /** Folder of the kept tails: a clean close keeps the state there (`kept-tail.ts`). */
    tailsDir?: string;
  }) {
    this.beforeRelease = options.beforeRelease;
    this.tailsDir = options.tailsDir;
    if ("tail" in options.session) {
      this.sessionId = options.session.tail.sessionId;
      this.tail = options.session.tail;
      this.readOpened = options.session.read;
      this.loadOpened = options.session.load;
    } else {
      this.sessionId = options.session.sessionId;
      this.current = options.session;
      this.readOpened = undefined;
      this.loadOpened = undefined;
    }
    this.fd = options.fd;
    this.path = options.path;
    this.home = options.home;
    this.size = fs.fstatSync(options.fd).size;
    this.base = options.segmentOf?.base ?? 0;
    this.tailed = options.segmentOf?.tailed ?? plainTailed(options.fd);
    this.lock = options.lock;
    this.durability = options.durability;
    this.now = options.now;
    this.payloads = options.payloads;
    // The next blob's staged file is made ahead while this writer is open (`BlobStore.stage`).
    if (this.stagesBlobs) this.payloads?.blobs.holdSpare();
  }

  /** Whether payloads go to blobs (a finite threshold). */
  private get stagesBlobs(): boolean {
    return this.payloads !== undefined && Number.isFinite(this.payloads.threshold);
  }

  /**
   * The whole session. A writer that continued from a kept tail reads the log (as it was at open,
   * synchronously) on the first call and applies its own appends since; from then on appends are
   * validated against it. A log damaged where the kept tail could not see throws here.
   */
  get session(): Session {
    if (this.current === undefined) this.adopt((this.readOpened as () => Session)());
    return this.current as Session;
  }

  /**
   * {@link session}, read asynchronously when the writer continued from a kept tail (the event
   * loop runs between the log's chunks, as when `openWriter` replayed): what a run calls before
   * it needs the history.
   */
  async loadSession(): Promise<Session> {
    if (this.current === undefined) {
      const session = await (this.loadOpened as () => Promise<Session>)();
      // The getter may have read it meanwhile.
      if (this.current === undefined) this.adopt(session);
    }
    return this.current as Session;
  }

  /** Takes the log as read at open, plus this writer's appends, as the session from now on. */
  private adopt(session: Session): void {
    const tail = this.tail as TailTarget;
    for (const event of tail.appended) session.append(event);
    this.current = session;
    this.tail = undefined;
  }

  get lastSeq(): number {
    return this.target.lastSeq;
  }

  /** What appends are validated against now. */
  private get target(): AppendTarget {
    return this.current ?? (this.tail as TailTarget);
  }

  append(drafts: readonly SessionEventDraft[], options?: AppendOptions): Promise<SessionEvent[]> {
    return this.enqueue(async () => {
      this.assertUsable();
      if (drafts.length === 0) return [];
      let events: SessionEvent[];
      const target = this.target;
      const before = target.lastSeq;
      // The scratch buffer is the thread's one: the lines are copied out before the first await.
      let lines: readonly Uint8Array[];
      let storeFirst = false;
      const pending: PendingBlobs = new Map();
      // Each payload's bytes are written to a temp file and, mid-turn, their fsync started before
      // they are hashed: it runs beside the hash and the lines' writes (renamed into place below).
      const staged: StagedBlobs = new Map();
      // A batch that ends at a sync point (and has no line after one) starts its blobs' fsyncs
      // with the log's, once its lines are written: one journal commit carries them all.
      const deferSyncs =
        (this.durability === "every-event" || needsSync(drafts)) && !linesAfterSyncPoint(drafts);
      try {
        const encoder = scratchEncoder();
        // The payloads' bytes go to the thread's arena: the blobs are written before any await.
        const payloads =
          this.payloads === undefined
            ? undefined
            : { ...this.payloads, arena: scratchArena(), staged, syncStaged: !deferSyncs };
        events = applyDrafts(target, drafts, this.now, encoder, options, payloads, pending);
        storeFirst = linesAfterSyncPoint(events) && (pending.size > 0 || this.blobSyncs.length > 0);
        lines = linesOf(encoder, storeFirst);
      } catch (error) {
        // All or nothing: nothing was written, and the session forgets the valid drafts too.
        this.payloads?.blobs.discard(staged);
        if (this.current !== undefined) this.current = rollBack(this.current, before);
        else this.tail?.rollBack(before);
        throw error;
      }
      // Bytes, not string lengths: the size a failed write cuts back to counts UTF-8 bytes.
      let written = 0;
      try {
        if (storeFirst) await this.storeBlobsFirst(pending, staged);
        else if (pending.size > 0) this.storeBlobs(pending, staged, deferSyncs);
        // One write() per line: a crash leaves whole lines and at most one torn tail.
        for (const bytes of lines) {
          writeAll(this.fd, bytes);
          written += bytes.length;
        }
        if (this.durability === "every-event" || needsSync(events)) await this.syncLog();
      } catch (error) {
        throw this.fail(error);
      } finally {
        // A payload repeated in the batch was staged twice, and a failure leaves what was staged.
        this.payloads?.blobs.discard(staged);
      }
      this.size += written;
      return events;
    });
  }

  sync(): Promise<void> {
    return this.enqueue(async () => {
      this.assertUsable();
      await this.syncLog();
    });
  }

  /**
   * Writes a batch's blobs (raw, temp file and rename) before its lines, and starts their fsyncs
   * (files and folders, on the thread pool) at once; {@link syncLog} awaits them beside the log's
   * own fsync at the next acknowledged point (a turn's end, an approval request, every append
   * with `"every-event"`, `sync`, `close`). A crash before that point may leave lines naming a
   * blob that did not reach the disk, all of them unacknowledged: replay moves them aside as a
   * torn tail (`unfinished-blob-write.ts`, architecture/storage.md). `defer`: the batch ends at
   * that point, and its blobs' fsyncs start with the log's in {@link syncLog}, after its lines
   * are written: started here, the file's fsync ran ahead on its own and the turn's end waited
   * for a second journal commit (the bench's one-append turn, paired: 1.24–1.43× inline, then
   * 1.12–1.14×).
   */
  private storeBlobs(pending: PendingBlobs, staged?: StagedBlobs, defer = false): void {
    const blobs = this.payloads?.blobs;
    if (blobs === undefined) return;
    // Written before any await: the bytes are views into the thread's arena.
    const syncs = blobs.writeAll(pending, staged);
    if (defer) {
      this.deferredSyncs.push(syncs);
      return;
    }
    this.startBlobSyncs(syncs);
  }

  /** Starts `syncs`' fsyncs; {@link syncLog} awaits them. */
  private startBlobSyncs(syncs: BlobSyncs): void {
    const blobs = this.payloads?.blobs;
    if (blobs === undefined) return;
    // Settled to the error (or undefined): a failed fsync is thrown by syncLog, never unhandled.
    this.blobSyncs.push(
      blobs.syncAll(syncs).then(
        () => undefined,
        (error: unknown) => error ?? new Error("blob fsync failed"),
      ),
    );
  }

  /**
   * For a batch with lines after a sync point: its blobs, and every blob written since the log's
   * last fsync, are on disk for good before its lines are written (replay reads a line after a
   * sync point as proof that the point's blobs were durable).
   */
  private async storeBlobsFirst(pending: PendingBlobs, staged: StagedBlobs): Promise<void> {
    if (pending.size > 0) this.storeBlobs(pending, staged);
    await this.awaitBlobSyncs();
  }

  /** Waits for the blob fsyncs started so far; throws the first that failed. */
  private async awaitBlobSyncs(): Promise<void> {
    if (this.blobSyncs.length === 0) return;
    const syncs = this.blobSyncs;
    this.blobSyncs = [];
    for (const failed of await Promise.all(syncs)) if (failed !== undefined) throw failed;
  }

  /**
   * Fsyncs the log and every blob written since its last fsync, all at once (one journal commit
   * carries them; blobs first, then the log, took two): the caller acknowledges nothing before
   * both have ended. A line that reached the disk while its blob did not is therefore never
   * acknowledged, and every later acknowledged point waited for that blob.
   */
  private async syncLog(): Promise<void> {
    for (const syncs of this.deferredSyncs.splice(0)) this.startBlobSyncs(syncs);
    const log = fsyncAsync(this.fd);
    try {
      await this.awaitBlobSyncs();
    } finally {
      // Never left unhandled, and never acknowledged early: the log's fsync ends before a throw.
      await log.catch(() => undefined);
    }
    await log;
  }

  close(): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return;
      this.closed = true;
      // The shard folders a writer's open started making end before it closes (never rejects),
      // and the last writer's spare staged file goes.
      await this.payloads?.blobs.shardsSettled();
      if (this.stagesBlobs) await this.payloads?.blobs.releaseSpare();
      let failed: unknown;
      try {
        if (this.failure === undefined) {
          await this.syncLog();
          // Only what is on disk is kept: after the fsync, before the lock goes.
          this.keepTail();
        } else {
          // The blob fsyncs still running (or not started: a batch that failed before its sync
          // point) end before the descriptor closes; theirs close too.
          for (const syncs of this.deferredSyncs.splice(0)) this.startBlobSyncs(syncs);
          await Promise.all(this.blobSyncs);
        }
      } catch (error) {
        failed = toStorageFault(error, { path: this.path, home: this.home }) ?? error;
      }
      fs.closeSync(this.fd);
      try {
        this.beforeRelease?.();
      } catch (error) {
        // After a failed write the first error is what the caller reports; the journal's
        // closing record is a hint (readers saw the opening one), so its failure is dropped.
        if (this.failure === undefined) failed ??= error;
      } finally {
        releaseLock(this.lock);
      }
      if (failed !== undefined) throw failed;
    });
  }

  /** Keeps the state for the next writer (`kept-tail.ts`); a failure only costs it a replay. */
  private keepTail(): void {
    if (this.tailsDir === undefined || this.base + this.size === 0) return;
    const state =
      this.current !== undefined ? this.current.invariantSnapshot() : this.tail?.snapshot();
    if (state !== undefined) {
      keepTail(this.tailsDir, this.sessionId, this.tailed, this.base + this.size, state);
    }
  }

  private assertUsable(): void {
    if (this.closed) {
      throw new TapedeckError("WRITER_CLOSED", `the writer of session ${this.sessionId} is closed`);
    }
    // The first error, not "an earlier write failed": its message says why and where.
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Records the first failed write and returns the error to throw. The batch's bytes are cut off
   * (none of its events was returned, so none was shown); the in-memory session has applied them,
   * so further appends are refused.
   */
  private fail(error: unknown): Error {
    try {
      fs.ftruncateSync(this.fd, this.size);
    } catch {
      // The bytes stay as a torn tail, which resume moves aside.
    }
    this.failure =
      toStorageFault(error, { path: this.path, home: this.home }) ??
      new TapedeckError(
        "WRITE_FAILED",
        `writing to session ${this.sessionId} failed (${(error as Error)?.message ?? String(error)}); reopen it`,
        { cause: error },
      );
    return this.failure;
  }

  /** Runs operations one at a time, in call order, whatever the earlier ones did. */
  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation, operation);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
