import type { CheckpointRecord, SessionEvent } from "@tapedeck/session";

/**
 * Takes checkpoints of a workspace's files for a run (the host's implementation lives in
 * `@tapedeck/checkpoints`). `take` should not throw: a failure is a record with `skipped` saying
 * why; if it throws anyway, the run records the error the same way and goes on.
 */
export interface WorkspaceCheckpointer {
  /**
   * Records the files now for `sessionId`; `previous` is the session's latest checkpoint id (the
   * parent, and what `changed` compares with).
   */
  take(sessionId: string, previous: string | undefined): Promise<CheckpointRecord>;
  /**
   * The run is over: releases what the checkpointer holds (the host's file-system watcher). Never
   * throws; `take` is not called after.
   */
  close(): Promise<void>;
}

/** The id of the latest checkpoint taken in `events` (turn/start or tool output), if any. */
export function latestCheckpointId(events: readonly SessionEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.type !== "turn/start" && event?.type !== "function_call_output") continue;
    const id = event.checkpoint?.id;
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * A run's checkpoints: one at a time, each the child of the one before, so calls that finish
 * together still record their changes in order.
 */
export class RunCheckpoints {
  private last: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly checkpointer: WorkspaceCheckpointer,
    private readonly sessionId: string,
    previous: string | undefined,
  ) {
    this.last = previous;
  }

  /** Takes the next checkpoint; never throws (a failure comes back as `skipped`). */
  take(): Promise<CheckpointRecord> {
    const run = this.queue.then(async (): Promise<CheckpointRecord> => {
      try {
        const record = await this.checkpointer.take(this.sessionId, this.last);
        if (record.id !== undefined) this.last = record.id;
        return record;
      } catch (error) {
        return { changed: [], skipped: (error as Error).message ?? String(error) };
      }
    });
    this.queue = run;
    return run;
  }

  /** After the checkpoints taken so far: releases the checkpointer (the run is over). */
  async close(): Promise<void> {
    await this.queue;
    await this.checkpointer.close().catch(() => undefined);
  }
}
