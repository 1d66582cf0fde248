/** Flushing new logs in batches while an import goes on. */
import type { SessionStore } from "@tapedeck/session-store";

/** New logs flushed to disk together (their `fsync`s run at once on the thread pool). */
const SYNC_BATCH = 16;
/** Batches being flushed while the import goes on; one more waits for the oldest. */
const SYNCS_IN_FLIGHT = 2;

/**
 * Flushes new logs in the background while the import goes on: a batch's `fsync`s wait on the
 * disk while the next files are converted and written, instead of all at the end. A failed
 * flush (disk full, I/O error) is thrown by the next `add` or by `finish`.
 */
export class BackgroundSync {
  private pending: string[] = [];
  private readonly inFlight: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;

  constructor(private readonly store: SessionStore) {}

  /** Queues a new log; starts flushing its batch when full. */
  async add(sessionId: string): Promise<void> {
    this.pending.push(sessionId);
    if (this.pending.length >= SYNC_BATCH) await this.start();
  }

  /** Flushes what is queued and waits for every flush; throws the first failure. */
  async finish(): Promise<void> {
    await this.start();
    await Promise.all(this.inFlight.splice(0));
    this.throwFailure();
  }

  private async start(): Promise<void> {
    this.throwFailure();
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (this.inFlight.length >= SYNCS_IN_FLIGHT) await this.inFlight.shift();
    this.inFlight.push(
      this.store.syncLogs(batch).catch((error: unknown) => {
        this.failure ??= { error };
      }),
    );
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}
