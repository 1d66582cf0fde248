/**
 * Writing new logs: all or nothing (a temp file beside the log, `link(2)`ed into place), and for
 * logs written without `fsync` (an import's), their descriptors kept for `syncLogs` and their temp
 * files created ahead of time on the thread pool.
 *
 * Creating a file (`open` with `O_CREAT`) waits for the file system's journal while other files
 * are being flushed: 0.2–0.45 ms per file on this project's test machine while an import's
 * background `fsync`s run, 25–30 % of an import's time spent blocked in `open`. The pool's
 * threads wait instead, while this thread converts and encodes.
 */
import * as fs from "node:fs";
import { TapedeckError } from "@tapedeck/session";
import { coldPathOf } from "./cold-read";
import {
  closeAsync,
  createFileExclusive,
  faultWriting,
  fsyncAsync,
  fsyncDirectoryAsync,
  fsyncFileAsync,
  hasErrorCode,
  makeDirectories,
  removeFile,
  tempPathIn,
  writeAll,
} from "./fs-util";
import { LeftoverTemps, SPARE_LABEL } from "./leftover-temps";

/** New logs kept open for `syncLogs` at most (an import flushes them in batches of 16). */
const MAX_UNSYNCED = 64;
/** Empty temp files kept ready for the next new logs written without `fsync`. */
const SPARES = 16;
/** Spares not taken for this long are removed (a caller that never calls `syncLogs`). */
const SPARE_IDLE_MS = 1000;

/** An empty temp file, open for writing. */
interface Spare {
  path: string;
  fd: number;
}

/** The new logs of one store (its sessions folder). */
export class NewLogs {
  /** Descriptors of new logs created without `fsync`, by session, until `sync` flushes them. */
  private readonly unsynced = new Map<string, number>();
  private readonly ready: Spare[] = [];
  /** Spares being created on the thread pool. */
  private opening = 0;
  /** Bumped by `releaseSpares`: a spare created for an older round is removed on arrival. */
  private round = 0;
  /** Set when creating a spare failed: the next logs are created here, where errors are reported. */
  private noSpares = false;
  private lastTake = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  /**
   * `leftovers`: the store's sweep of temp files killed processes left in the folder, started
   * here (if the store has not listed the folder yet) when spares are first made.
   */
  constructor(
    private readonly sessionsDir: string,
    private readonly home: string,
    private readonly pathOf: (sessionId: string) => string,
    private readonly leftovers = new LeftoverTemps(sessionsDir),
  ) {}

  /**
   * Writes a new log (header + event lines, UTF-8) atomically; it never existed before.
   * `durable: false`: not fsynced, its descriptor kept for {@link sync}, its temp file one
   * created ahead.
   *
   * @throws `SESSION_EXISTS` when a log of that id exists; a storage fault naming the log.
   */
  write(sessionId: string, data: Uint8Array, durable = true): void {
    const path = this.pathOf(sessionId);
    // A cold log holds the id too: a plain log beside it would hide it (and be taken for newer).
    if (fs.existsSync(coldPathOf(path))) {
      throw new TapedeckError("SESSION_EXISTS", `session ${sessionId} already exists`);
    }
    let fd: number | undefined;
    try {
      fd = this.create(path, data, durable);
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) {
        throw new TapedeckError("SESSION_EXISTS", `session ${sessionId} already exists`, {
          cause: error,
        });
      }
      throw faultWriting(error, path, this.home);
    } finally {
      if (!durable) this.fillSpares();
    }
    if (fd === undefined) return;
    this.unsynced.set(sessionId, fd);
    // A caller that never flushes holds at most this many descriptors; older ones are closed
    // (`sync` then opens their files again).
    if (this.unsynced.size > MAX_UNSYNCED) {
      const [oldest, oldestFd] = this.unsynced.entries().next().value as [string, number];
      this.unsynced.delete(oldest);
      fs.closeSync(oldestFd);
    }
  }

  /** Creates `path` holding `data`, all or nothing; not durable: returns its open descriptor. */
  private create(path: string, data: Uint8Array, durable: boolean): number | undefined {
    const spare = durable ? undefined : this.takeSpare();
    if (spare !== undefined) {
      try {
        return linkSpare(spare, path, data);
      } catch (error) {
        // The folder was removed meanwhile: made again below, as for a home's first log.
        if (!hasErrorCode(error, "ENOENT")) throw error;
      }
    }
    try {
      return createFileExclusive(path, data, durable, !durable);
    } catch (error) {
      if (!hasErrorCode(error, "ENOENT")) throw error;
      // The home's first log: its folder is made then, not checked before every create.
      makeDirectories(this.sessionsDir);
      return createFileExclusive(path, data, durable, !durable);
    }
  }

  /**
   * Flushes the named logs and the sessions folder, concurrently on the thread pool. Once no new
   * log waits for it, the spare temp files are removed.
   */
  async sync(sessionIds: readonly string[]): Promise<void> {
    const paths = sessionIds.map((sessionId) => this.pathOf(sessionId));
    try {
      await Promise.all(paths.map((path, index) => this.syncOne(sessionIds[index]!, path)));
      // Asynchronous like the files': an import goes on converting while the directory commits.
      if (paths.length > 0) await fsyncDirectoryAsync(this.sessionsDir);
    } finally {
      if (this.unsynced.size === 0) this.releaseSpares();
    }
  }

  private async syncOne(sessionId: string, path: string): Promise<void> {
    const fd = this.unsynced.get(sessionId);
    if (fd !== undefined) {
      // Still open since it was created: flushed and closed on the thread pool.
      this.unsynced.delete(sessionId);
      try {
        await fsyncAsync(fd);
      } finally {
        await closeAsync(fd);
      }
      return;
    }
    await fsyncFileAsync(path);
  }

  /** A ready spare, if any. */
  private takeSpare(): Spare | undefined {
    this.lastTake = Date.now();
    return this.ready.shift();
  }

  /** Starts creating spares on the thread pool, up to {@link SPARES}. */
  private fillSpares(): void {
    // In bursts, once half are taken: each request that finds a pool thread idle wakes one, and on
    // a busy machine the woken thread takes this one's core for a while (≈ 0.1 ms a request).
    if (this.noSpares || this.ready.length + this.opening > SPARES / 2) return;
    void this.leftovers.sweep();
    const round = this.round;
    while (this.ready.length + this.opening < SPARES) {
      const path = tempPathIn(this.sessionsDir, SPARE_LABEL);
      this.opening += 1;
      fs.open(path, "wx", 0o600, (error, fd) => {
        if (round === this.round) this.opening -= 1;
        if (error) {
          this.noSpares = true;
          return;
        }
        if (round !== this.round) {
          fs.close(fd, () => fs.unlink(path, () => undefined));
          return;
        }
        this.ready.push({ path, fd });
      });
    }
    this.idleTimer ??= setTimeout(() => this.releaseWhenIdle(), SPARE_IDLE_MS).unref();
  }

  /**
   * Resolves once the temp files other processes left (spares of an import stopped by Ctrl-C or
   * a crash, new logs never linked) are removed; see `LeftoverTemps`.
   */
  sweptLeftovers(): Promise<void> {
    return this.leftovers.done();
  }

  private releaseWhenIdle(): void {
    this.idleTimer = undefined;
    const idle = Date.now() - this.lastTake;
    if (idle >= SPARE_IDLE_MS) this.releaseSpares();
    else this.idleTimer = setTimeout(() => this.releaseWhenIdle(), SPARE_IDLE_MS - idle).unref();
  }

  /** Removes the spares (those still being created are removed when they arrive). */
  private releaseSpares(): void {
    this.round += 1;
    this.opening = 0;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    for (const spare of this.ready.splice(0)) {
      fs.closeSync(spare.fd);
      removeFile(spare.path);
    }
  }
}

/**
 * Writes `data` into the empty temp file `spare` and links it to `path`, as `createFileExclusive`
 * does with a temp file of its own (no fsync; the descriptor is returned open). On failure the
 * spare is closed and removed, and nothing is left at `path`.
 */
function linkSpare(spare: Spare, path: string, data: Uint8Array): number {
  try {
    writeAll(spare.fd, data);
    fs.linkSync(spare.path, path);
  } catch (error) {
    fs.closeSync(spare.fd);
    throw error;
  } finally {
    removeFile(spare.path);
  }
  return spare.fd;
}
