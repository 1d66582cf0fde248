import type { WorkspaceCheckpointer } from "@tapedeck/agent";
import {
  type CheckpointStore,
  checkpointRecordOf,
  findWorkspace,
  openCheckpointStore,
} from "@tapedeck/checkpoints";
import type { CheckpointRecord } from "@tapedeck/session";

/** Options of {@link runCheckpointers}. */
export interface RunCheckpointersOptions {
  /** Files larger than this are left out (`TAPEDECK_CHECKPOINT_MAX_BYTES`). */
  maxFileBytes?: number;
  /** Watch the workspace while runs take checkpoints (`TAPEDECK_CHECKPOINT_MONITOR`). */
  monitor: boolean;
  /**
   * How long a workspace's store (and its watcher) stays open after its last run ended, for the
   * next run of a long-lived host (ACP, the viewer) to find it watching; 0: closed as the run
   * ends. The timer never keeps the process alive.
   */
  lingerMs: number;
}

/** The checkpointers of a host's runs, and closing what they keep open. */
export interface RunCheckpointers {
  /** The checkpointer of one run working in `cwd`. */
  checkpointerFor(cwd: string): WorkspaceCheckpointer;
  /** Closes every store still open (a lingering watcher included). */
  close(): Promise<void>;
}

/** The ref that keeps a session's checkpoints alive in the workspace's private store. */
export function sessionCheckpointRef(sessionId: string): string {
  return `refs/tapedeck/sessions/${sessionId}`;
}

interface SharedStore {
  store: Promise<CheckpointStore>;
  runs: number;
  timer?: NodeJS.Timeout;
}

/** The workspace root of `cwd` (what a store covers), or `cwd` when it cannot be read. */
function rootOf(cwd: string): string {
  try {
    return findWorkspace(cwd).root;
  } catch {
    return cwd;
  }
}

/**
 * Checkpointers whose runs in one workspace share its store and file-system watcher: concurrent
 * runs of one process then take their checkpoints one at a time through one watcher (two watchers
 * of one workspace would each make the other check everything), and with `lingerMs` a later run
 * finds the watcher ready. Every failure of a checkpoint becomes a record with `skipped` (a turn
 * never fails for a checkpoint) and drops the shared store, so the next checkpoint opens it anew.
 */
export function runCheckpointers(home: string, options: RunCheckpointersOptions): RunCheckpointers {
  const shared = new Map<string, SharedStore>();
  const drop = async (root: string, entry: SharedStore) => {
    if (shared.get(root) === entry) shared.delete(root);
    clearTimeout(entry.timer);
    await entry.store.then((store) => store.close()).catch(() => undefined);
  };
  const acquire = (root: string, cwd: string): SharedStore => {
    let entry = shared.get(root);
    if (entry === undefined) {
      entry = {
        store: openCheckpointStore({
          home,
          cwd,
          ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
          monitor: options.monitor,
        }),
        runs: 0,
      };
      shared.set(root, entry);
    }
    clearTimeout(entry.timer);
    entry.runs += 1;
    return entry;
  };
  const release = async (root: string, entry: SharedStore) => {
    entry.runs -= 1;
    if (entry.runs > 0 || shared.get(root) !== entry) return;
    if (options.lingerMs <= 0) {
      await drop(root, entry);
      return;
    }
    entry.timer = setTimeout(() => {
      if (entry.runs === 0) void drop(root, entry);
    }, options.lingerMs);
    entry.timer.unref();
  };
  return {
    checkpointerFor(cwd: string): WorkspaceCheckpointer {
      const root = rootOf(cwd);
      let held: SharedStore | undefined;
      let closed = false;
      let refreshed = false;
      return {
        async take(sessionId, previous): Promise<CheckpointRecord> {
          try {
            if (closed) throw new Error("the run's checkpoints are closed");
            held ??= acquire(root, cwd);
            const store = await held.store;
            // A store kept open since an earlier run reads the user's settings again, as a
            // newly opened one does (its info/exclude may have changed meanwhile).
            if (!refreshed) {
              refreshed = true;
              await store.refreshSettings();
            }
            // A previous id this store lacks (a log from another machine) gives a first one.
            const taken = await store.take({
              ref: sessionCheckpointRef(sessionId),
              ...(previous === undefined ? {} : { previous }),
            });
            return checkpointRecordOf(taken);
          } catch (error) {
            const failed = held;
            held = undefined;
            if (failed !== undefined) {
              failed.runs -= 1;
              await drop(root, failed);
            }
            return { changed: [], skipped: (error as Error).message ?? String(error) };
          }
        },
        async close(): Promise<void> {
          closed = true;
          const entry = held;
          held = undefined;
          if (entry !== undefined) await release(root, entry);
        },
      };
    },
    async close(): Promise<void> {
      const entries = [...shared.entries()];
      await Promise.all(entries.map(([root, entry]) => drop(root, entry)));
    },
  };
}
