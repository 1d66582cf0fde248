/**
 * The public `CheckpointStore`: one queue serializes its calls (one private index), the monitor's
 * list handed to the taker, and the readers of checkpoints as trees; plus the log's record of a
 * checkpoint taken.
 */
import path from "node:path";
import type { CheckpointChange, CheckpointRecord } from "@tapedeck/session";
import { CheckpointTrees } from "./checkpoint-trees";
import type { FsMonitor, MonitorAnswer } from "./fs-monitor";
import type { GitPlace } from "./git";
import { PrivateIndex } from "./private-index";
import { syncPrivateSettings } from "./private-settings";
import { CheckpointTaker } from "./take-checkpoint";
import type { TreeChange } from "./tree-diff";
import type { CheckpointWorkspace } from "./workspace";

/** Changes listed in a log record; the rest are counted in `more`. */
export const LISTED_CHANGES = 200;

/** A checkpoint just taken. */
export interface TakenCheckpoint {
  /** Commit id in the private store, or a light checkpoint's id (`lc-…`). */
  id: string;
  /** Its tree id (a full checkpoint; a light one's tree is built when read: {@link CheckpointStore.treeOf}). */
  tree?: string;
  /** Every change since `previous` (empty without one). */
  changes: TreeChange[];
  /** Files left out for their size. */
  omitted: { path: string; reason: "too-large"; bytes: number }[];
}

/** The record the log keeps of a checkpoint (`changed` capped at {@link LISTED_CHANGES}). */
export function checkpointRecordOf(taken: TakenCheckpoint): CheckpointRecord {
  const changed: CheckpointChange[] = taken.changes.slice(0, LISTED_CHANGES).map((change) => ({
    path: change.path,
    change: change.change,
    ...(change.from === undefined ? {} : { from: change.from }),
  }));
  const more = taken.changes.length - changed.length;
  return {
    id: taken.id,
    changed,
    ...(more > 0 ? { more } : {}),
    ...(taken.omitted.length > 0 ? { omitted: taken.omitted.slice(0, LISTED_CHANGES) } : {}),
  };
}

/**
 * One workspace's checkpoints: a private bare git repository under the home with its own
 * persistent index, borrowing the user's objects read-only through alternates. Calls are
 * serialized (one index).
 */
export class CheckpointStore {
  readonly workspace: CheckpointWorkspace;
  readonly dir: string;
  readonly place: GitPlace;
  private queue: Promise<unknown> = Promise.resolve();
  /** The checkpoints' trees, memoized for the process. */
  private readonly trees: CheckpointTrees;
  private readonly home: string;
  /** Takes the checkpoints (light or full) and keeps the state choosing between them. */
  private readonly taker: CheckpointTaker;
  /** The file-system monitor, when {@link OpenCheckpointStoreOptions.monitor} asked for one. */
  monitor: FsMonitor | undefined;

  /** Use {@link openCheckpointStore}. */
  constructor(
    workspace: CheckpointWorkspace,
    dir: string,
    options: { maxFileBytes: number; maxFiles: number; home: string; light?: boolean },
  ) {
    this.home = options.home;
    this.workspace = workspace;
    this.dir = dir;
    this.place = {
      gitDir: path.join(dir, "git"),
      indexFile: path.join(dir, "index"),
      workTree: workspace.root,
    };
    this.trees = new CheckpointTrees(this.place, dir);
    this.taker = new CheckpointTaker({
      workspace,
      dir,
      place: this.place,
      index: new PrivateIndex(this.place, options),
      trees: this.trees,
      light: options.light ?? true,
    });
  }

  /** Runs `task` after every earlier call of this store has finished. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Records the workspace's files now. `previous` (a checkpoint id of the same session) is the
   * parent and what `changes` compare with; `ref` names the session keeping it alive.
   */
  take(options: { ref: string; previous?: string }): Promise<TakenCheckpoint> {
    return this.serialize(async () => (await this.takeNow(options, [])).taken);
  }

  /**
   * {@link take}, plus the changes between the new checkpoint and each of `compare` (checkpoint
   * ids of this store, no renames): `toward` lists what turns the new checkpoint into the other,
   * `from` what turned the other into the new one. Read from the new index while its tree is
   * written, in the same round of processes.
   */
  takeComparing(
    options: { ref: string; previous?: string },
    compare: readonly { id: string; direction: "toward" | "from" }[],
  ): Promise<{ taken: TakenCheckpoint; compared: TreeChange[][] }> {
    return this.serialize(async () => {
      const trees = await Promise.all(compare.map((entry) => this.requireTree(entry.id)));
      return this.takeNow(
        options,
        compare.map((entry, index) => ({
          tree: trees[index] ?? "",
          reverse: entry.direction === "toward",
        })),
      );
    });
  }

  /**
   * Reads the user's repository settings again (its `info/exclude`, its objects folder), as
   * opening the store does: for a store kept open across runs. A changed exclude makes the
   * monitor's next answer "everything" (and the folders no longer ignored watched).
   */
  async refreshSettings(): Promise<void> {
    await this.serialize(async () => {
      if (await syncPrivateSettings(this, this.home)) this.monitor?.ignoreRulesChanged();
    });
  }

  /** Stops the file-system monitor, if any (the store stays usable, unmonitored). */
  async close(): Promise<void> {
    const monitor = this.monitor;
    this.monitor = undefined;
    await this.serialize(async () => monitor?.close());
  }

  private async takeNow(
    options: { ref: string; previous?: string },
    compare: readonly { tree: string; reverse: boolean }[],
  ): Promise<{ taken: TakenCheckpoint; compared: TreeChange[][] }> {
    const monitor = this.monitor;
    // The monitor's list, when it can vouch for it; otherwise git checks every file.
    const answer: MonitorAnswer | undefined = await monitor?.changedSince().catch(() => undefined);
    let succeeded = false;
    try {
      const only = answer?.everything === false ? answer.paths : undefined;
      const exact = answer?.everything === false && !answer.foldersGone;
      const taken = await this.taker.takeListed(options, compare, only, exact);
      succeeded = true;
      return taken;
    } finally {
      await monitor?.settle(succeeded);
    }
  }

  /** The tree of a checkpoint, or undefined when this store does not hold it. */
  treeOf(id: string): Promise<string | undefined> {
    return this.trees.treeOf(id);
  }

  /** The tree of a checkpoint; throws `CHECKPOINT_NOT_FOUND` when this store lacks it. */
  requireTree(id: string): Promise<string> {
    return this.trees.requireTree(id);
  }

  /**
   * The paths that may differ between checkpoints `from` and `to` (a superset): for two light
   * checkpoints on one base, every path their records name, without building a tree; else the
   * changes between their trees.
   */
  pathsBetween(from: string, to: string): Promise<{ path: string }[]> {
    return this.trees.pathsBetween(from, to);
  }

  /** What changed from checkpoint `from` to checkpoint `to` (renames detected when asked). */
  changesBetween(from: string, to: string, renames = true): Promise<TreeChange[]> {
    return this.trees.changesBetween(from, to, renames);
  }
}
