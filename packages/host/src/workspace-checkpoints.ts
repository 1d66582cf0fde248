import type { WorkspaceCheckpointer } from "@tapedeck/agent";
import { checkpointStorage } from "@tapedeck/checkpoints";
import type { SessionStore } from "@tapedeck/session-store";
import { type RunCheckpointers, runCheckpointers } from "./run-checkpointers";
import type { StorageContributor, StorageUsage } from "./storage-contributor";

export { sessionCheckpointRef } from "./run-checkpointers";

/** True unless `TAPEDECK_CHECKPOINTS` is `off` (also `0`, `false`, `no`). */
export function checkpointsEnabled(env: Record<string, string | undefined>): boolean {
  const value = env.TAPEDECK_CHECKPOINTS?.trim().toLowerCase();
  return !(value === "off" || value === "0" || value === "false" || value === "no");
}

/**
 * True unless `TAPEDECK_CHECKPOINT_MONITOR` is `off` (also `0`, `false`, `no`): a run watches its
 * workspace so each checkpoint looks only at what changed (`@tapedeck/checkpoints`, fs-monitor).
 */
export function checkpointMonitorEnabled(env: Record<string, string | undefined>): boolean {
  const value = env.TAPEDECK_CHECKPOINT_MONITOR?.trim().toLowerCase();
  return !(value === "off" || value === "0" || value === "false" || value === "no");
}

/** `TAPEDECK_CHECKPOINT_MAX_BYTES`: the per-file size limit, when set to a positive integer. */
function maxFileBytes(env: Record<string, string | undefined>): number | undefined {
  const value = Number(env.TAPEDECK_CHECKPOINT_MAX_BYTES);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The checkpointers of a host's runs, or undefined when checkpoints are off: each opens the
 * workspace's store on first use, with a file-system monitor unless `TAPEDECK_CHECKPOINT_MONITOR`
 * is off (see {@link runCheckpointers}: runs of one workspace share it; `lingerMs` keeps it open
 * after the last run ends).
 */
export function workspaceCheckpointers(
  home: string,
  env: Record<string, string | undefined>,
  lingerMs = 0,
): RunCheckpointers | undefined {
  if (!checkpointsEnabled(env)) return undefined;
  const limit = maxFileBytes(env);
  return runCheckpointers(home, {
    ...(limit === undefined ? {} : { maxFileBytes: limit }),
    monitor: checkpointMonitorEnabled(env),
    lingerMs,
  });
}

/**
 * The checkpointer of one run working in `cwd`, or undefined when checkpoints are off; its store
 * and watcher close when the run ends (`close`).
 */
export function workspaceCheckpointer(
  home: string,
  cwd: string,
  env: Record<string, string | undefined>,
): WorkspaceCheckpointer | undefined {
  return workspaceCheckpointers(home, env)?.checkpointerFor(cwd);
}

/** The checkpoints' {@link StorageContributor} of `home` (`tapedeck storage` lists it). */
export function checkpointsContributor(home: string): StorageContributor {
  return checkpointStorage(home);
}

/**
 * `tapedeck checkpoints gc`: reclaims the checkpoints of sessions that no longer exist outside
 * the trash. Returns the usage before and the bytes freed (with `dryRun`, a lower bound).
 */
export async function reclaimCheckpoints(
  store: SessionStore,
  options: { dryRun: boolean },
): Promise<{ before: StorageUsage; freed: number }> {
  const live = new Set((await store.list()).map((listing) => listing.sessionId));
  const storage = checkpointStorage(store.home);
  const before = await storage.usage();
  const { bytes } = await storage.reclaim(live, options);
  return { before, freed: bytes };
}
