import type { LogFileState, SessionIndex } from "@tapedeck/host";
import type { SessionStore } from "@tapedeck/session-store";

/** How long after a watch hint the tick runs (appends in between share it). */
const WAKE_DELAY_MS = 5;

/**
 * How many ticks a session the journal named stays a candidate while its log has not changed.
 * The store writes the journal record before the log's bytes, so a tick between the two sees the
 * session named but its log unchanged; the append's own watch hint (or the poll) ticks again.
 */
const EXPECT_TICKS = 5;

/** What `GET /api/live` sends when a log appears or grows. */
export interface LiveChange {
  sessionId: string;
  /** True when the log was not there at the previous scan. */
  created: boolean;
  /** The log's size in bytes now. */
  size: number;
}

/**
 * Follows the store's change feed (`changesSince`): each tick reads the change journal from its
 * cursor and looks only at the sessions named there, so a quiet tick costs a `stat` of the folder
 * and a read of the journal's tail, not a `stat` of every log. When a log appears, grows or goes,
 * it syncs the index and tells the subscribers. A tick runs on the store's `watch` hint a few
 * milliseconds after a log is written (so an open page shows an appended event at once), and on
 * a slow poll besides, which alone behaves the same on every platform and filesystem.
 */
export class LiveWatcher {
  readonly #store: SessionStore;
  readonly #index: SessionIndex;
  readonly #intervalMs: number;
  readonly #subscribers = new Set<(changes: LiveChange[]) => void>();
  /** Size and mtime of every log as last seen; `null` before the first tick. */
  #known: Map<string, LogFileState> | null = null;
  #cursor: string | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;
  /** The tick running now, if any. */
  #running: Promise<LiveChange[]> | null = null;
  /** A wake came while a tick ran: tick again when it ends. */
  #again = false;
  #wakeTimer: NodeJS.Timeout | null = null;
  #unwatch: (() => void) | null = null;
  /** The first tick after `start`: the view of the logs later changes are measured against. */
  #baseline: Promise<void> | null = null;
  /** Sessions the journal named whose log had not changed yet → ticks left to look again. */
  readonly #expected = new Map<string, number>();

  constructor(store: SessionStore, index: SessionIndex, intervalMs: number) {
    this.#store = store;
    this.#index = index;
    this.#intervalMs = intervalMs;
  }

  /** Starts watching and polling (idempotent). */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      // The folder may not have existed at start (a new home): try to watch it again.
      this.#watch();
      void this.tick();
    }, this.#intervalMs);
    this.#timer.unref();
    this.#watch();
    // Take the first view now: had it waited for the first watch hint, the append that caused the
    // hint would be part of the first view and never reported as a change.
    // A tick still running (from before a `stop`) may have looked before an append: the first
    // view is taken after it.
    const running = this.#running;
    const look = running === null ? this.tick() : running.catch(() => []).then(() => this.tick());
    this.#baseline = look.then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Resolves once the watcher has its first view of the logs: an append after it is reported to
   * subscribers. A reader that reads what is there after this misses nothing.
   */
  ready(): Promise<void> {
    return this.#baseline ?? Promise.resolve();
  }

  /** Stops watching and polling. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#wakeTimer !== null) clearTimeout(this.#wakeTimer);
    this.#wakeTimer = null;
    this.#unwatch?.();
    this.#unwatch = null;
  }

  #watch(): void {
    if (this.#unwatch === null) this.#unwatch = this.#store.watch(() => this.#wake());
  }

  /**
   * A log was written: tick soon. The short delay lets a burst of appends (a streamed answer)
   * share one tick.
   */
  #wake(): void {
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    if (this.#wakeTimer !== null || this.#timer === null) return;
    this.#wakeTimer = setTimeout(() => {
      this.#wakeTimer = null;
      void this.tick();
    }, WAKE_DELAY_MS);
    this.#wakeTimer.unref();
  }

  /** Registers a subscriber; returns the function that removes it. */
  subscribe(listener: (changes: LiveChange[]) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  /** One look at the change feed: sync the index if anything changed, then notify. For tests. */
  tick(): Promise<LiveChange[]> {
    if (this.#ticking) {
      this.#again = true;
      return Promise.resolve([]);
    }
    const running = this.#look();
    this.#running = running;
    return running;
  }

  async #look(): Promise<LiveChange[]> {
    this.#ticking = true;
    this.#again = false;
    try {
      const feed = await this.#store.changesSince(this.#cursor);
      this.#cursor = feed.cursor;
      const known = this.#known;
      if (feed.kind === "scan") {
        const files = new Map<string, LogFileState>();
        for (const log of feed.logs) {
          files.set(log.sessionId, { size: log.size, mtimeMs: log.modifiedMs });
        }
        this.#known = files;
        if (known === null) {
          await this.#index.sync();
          return [];
        }
        return await this.#publish(
          diff(known, files, [...new Set([...known.keys(), ...files.keys()])]),
        );
      }
      const current = known ?? new Map<string, LogFileState>();
      this.#known = current;
      const named = new Set(feed.sessionIds);
      const candidates = new Set([...named, ...this.#expected.keys()]);
      if (feed.present !== undefined) {
        const present = new Set(feed.present);
        for (const id of present) if (!current.has(id)) candidates.add(id);
        for (const id of current.keys()) if (!present.has(id)) candidates.add(id);
      }
      const now = new Map<string, LogFileState>();
      for (const sessionId of candidates) {
        const entry = this.#store.entry(sessionId);
        if (entry !== null) now.set(sessionId, { size: entry.size, mtimeMs: entry.modifiedMs });
      }
      const changes = diff(current, now, [...candidates]);
      this.#expect(named, changes);
      for (const sessionId of candidates) {
        const state = now.get(sessionId);
        if (state === undefined) current.delete(sessionId);
        else current.set(sessionId, state);
      }
      return await this.#publish(changes);
    } finally {
      this.#ticking = false;
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.#wake();
      }
    }
  }

  /** Keeps looking at sessions the journal named whose log has not changed yet. */
  #expect(named: ReadonlySet<string>, changes: readonly LiveChange[]): void {
    const changed = new Set(changes.map((change) => change.sessionId));
    for (const sessionId of named) {
      if (!changed.has(sessionId)) this.#expected.set(sessionId, EXPECT_TICKS + 1);
    }
    for (const [sessionId, left] of this.#expected) {
      if (changed.has(sessionId) || left <= 1) this.#expected.delete(sessionId);
      else this.#expected.set(sessionId, left - 1);
    }
  }

  async #publish(changes: LiveChange[]): Promise<LiveChange[]> {
    if (changes.length > 0) {
      // Streams first (they read the logs, not the index); readers of the index sync it anyway.
      for (const listener of this.#subscribers) listener(changes);
      await this.#index.sync();
    }
    return changes;
  }
}

/** What changed between two views of the logs `ids`. */
function diff(
  before: ReadonlyMap<string, LogFileState>,
  after: ReadonlyMap<string, LogFileState>,
  ids: readonly string[],
): LiveChange[] {
  const changes: LiveChange[] = [];
  for (const sessionId of [...ids].sort()) {
    const was = before.get(sessionId);
    const is = after.get(sessionId);
    if (is === undefined) {
      if (was !== undefined) changes.push({ sessionId, created: false, size: -1 });
    } else if (was === undefined || was.size !== is.size || was.mtimeMs !== is.mtimeMs) {
      changes.push({ sessionId, created: was === undefined, size: is.size });
    }
  }
  return changes;
}
