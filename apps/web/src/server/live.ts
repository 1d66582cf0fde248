import type { SessionStore } from "@tapedeck/session-store";
import { type LogFileState, type SessionIndex, scanLogFiles } from "./session-index";

/** What `GET /api/live` sends when a log appears or grows. */
export interface LiveChange {
  sessionId: string;
  /** True when the log was not there at the previous scan. */
  created: boolean;
  /** The log's size in bytes now. */
  size: number;
}

/**
 * Polls the sessions directory; when a log appears, grows or goes, syncs the index and tells the
 * subscribers. Polling (not `fs.watch`) because it behaves the same on every platform and
 * filesystem, and a stat per file per second is cheap.
 */
export class LiveWatcher {
  readonly #store: SessionStore;
  readonly #index: SessionIndex;
  readonly #intervalMs: number;
  readonly #subscribers = new Set<(changes: LiveChange[]) => void>();
  #previous: Map<string, LogFileState> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;

  constructor(store: SessionStore, index: SessionIndex, intervalMs: number) {
    this.#store = store;
    this.#index = index;
    this.#intervalMs = intervalMs;
  }

  /** Starts polling (idempotent). */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.tick(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Stops polling. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Registers a subscriber; returns the function that removes it. */
  subscribe(listener: (changes: LiveChange[]) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  /** One scan: sync the index if anything changed, then notify. Exposed for tests. */
  async tick(): Promise<LiveChange[]> {
    if (this.#ticking) return [];
    this.#ticking = true;
    try {
      const files = await scanLogFiles(this.#store);
      const previous = this.#previous;
      this.#previous = files;
      if (previous === null) {
        await this.#index.sync();
        return [];
      }
      const changes: LiveChange[] = [];
      for (const [sessionId, state] of files) {
        const before = previous.get(sessionId);
        if (
          before === undefined ||
          before.size !== state.size ||
          before.mtimeMs !== state.mtimeMs
        ) {
          changes.push({ sessionId, created: before === undefined, size: state.size });
        }
      }
      for (const sessionId of previous.keys()) {
        if (!files.has(sessionId)) changes.push({ sessionId, created: false, size: -1 });
      }
      if (changes.length > 0) {
        await this.#index.sync();
        for (const listener of this.#subscribers) listener(changes);
      }
      return changes;
    } finally {
      this.#ticking = false;
    }
  }
}
