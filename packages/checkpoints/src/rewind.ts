import type { CheckpointStore, TakenCheckpoint } from "./checkpoint-store";
import { CheckpointError } from "./errors";
import { restoreFiles, sweepKilledTemps } from "./restore-files";
import { appendRewind, type RewindEntry, readRewinds } from "./rewind-journal";
import type { TreeChange } from "./tree-diff";

/** What restoring a checkpoint would do to the workspace now. */
export interface RestorePlan {
  /** The files as they are now (already recorded: what an undo brings back). */
  current: TakenCheckpoint;
  /** The checkpoint to restore. */
  target: string;
  /** Changes from now to the target, file by file (no renames: a move is delete + add). */
  changes: TreeChange[];
  /**
   * Paths the plan would overwrite or delete that differ from `agentLatest` (the last state the
   * agent left): edits made by someone else since.
   */
  handEdited: string[];
}

/** Options of {@link planRestore}. */
export interface PlanRestoreOptions {
  target: string;
  /** The session's latest checkpoint: files that differ from it now are hand edits. */
  agentLatest?: string;
}

/** Records the current files and compares them with `target`. Changes no workspace file. */
export async function planRestore(
  store: CheckpointStore,
  options: PlanRestoreOptions,
): Promise<RestorePlan> {
  await store.requireTree(options.target);
  const agentLatest =
    options.agentLatest !== undefined && (await store.treeOf(options.agentLatest)) !== undefined
      ? options.agentLatest
      : undefined;
  const { taken: current, compared } = await store.takeComparing(
    { ref: `refs/tapedeck/undo/${Date.now()}` },
    [
      { id: options.target, direction: "toward" },
      ...(agentLatest === undefined ? [] : [{ id: agentLatest, direction: "from" as const }]),
    ],
  );
  const changes = compared[0] ?? [];
  let handEdited: string[] = [];
  if (agentLatest !== undefined) {
    const touched = new Set((compared[1] ?? []).map((change) => change.path));
    handEdited = changes.map((change) => change.path).filter((file) => touched.has(file));
  }
  return { current, target: options.target, changes, handEdited };
}

/**
 * Applies a plan: journals the undo checkpoint (fsynced) before the first file changes, then
 * restores the files (temps written and fsynced, then renamed). Returns the journal entry.
 */
export async function applyRestore(
  store: CheckpointStore,
  plan: RestorePlan,
  details: Omit<RewindEntry, "at" | "undo" | "target">,
): Promise<RewindEntry & { written: string[]; deleted: string[] }> {
  const entry: RewindEntry = {
    at: new Date().toISOString(),
    undo: plan.current.id,
    target: plan.target,
    ...details,
  };
  // The folders the previous rewind wrote to: if it was killed, its temp files are there.
  const previous = (await readRewinds(store)).at(-1);
  const previousChanges =
    previous === undefined
      ? Promise.resolve([])
      : store.pathsBetween(previous.undo, previous.target).catch(() => []);
  // The blobs are read while the entry is made durable; no file changes before it is.
  const journaled = appendRewind(store, entry);
  journaled.catch(() => undefined);
  const result = await store.serialize(() => restoreFiles(store, plan.changes, journaled));
  await sweepKilledTemps(store.workspace.root, [...plan.changes, ...(await previousChanges)]);
  return { ...entry, ...result };
}

/** The last rewind of the workspace, for `--undo`; throws `NOTHING_TO_UNDO` when none. */
export async function lastRewind(store: CheckpointStore): Promise<RewindEntry> {
  const entries = await readRewinds(store);
  const last = entries.at(-1);
  if (last === undefined) {
    throw new CheckpointError("NOTHING_TO_UNDO", `No rewind of ${store.workspace.root} to undo.`);
  }
  return last;
}
