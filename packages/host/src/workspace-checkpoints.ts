import type { WorkspaceCheckpointer } from "@tapedeck/agent";
import {
  type CheckpointStore,
  checkpointRecordOf,
  checkpointStorage,
  openCheckpointStore,
} from "@tapedeck/checkpoints";
import type { CheckpointRecord } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import type { StorageContributor, StorageUsage } from "./storage-contributor";

/** The ref that keeps a session's checkpoints alive in the workspace's private store. */
export function sessionCheckpointRef(sessionId: string): string {
  return `refs/tapedeck/sessions/${sessionId}`;
}

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
 * The checkpointer of a run working in `cwd`, or undefined when checkpoints are off. It opens the
 * workspace's store on first use, with a file-system monitor (unless `TAPEDECK_CHECKPOINT_MONITOR`
 * is off) that `close` stops at the end of the run; every failure becomes a record with `skipped`
 * (a turn never fails for a checkpoint).
 */
export function workspaceCheckpointer(
  home: string,
  cwd: string,
  env: Record<string, string | undefined>,
): WorkspaceCheckpointer | undefined {
  if (!checkpointsEnabled(env)) return undefined;
  let opened: Promise<CheckpointStore> | undefined;
  let closed = false;
  const limit = maxFileBytes(env);
  const monitor = checkpointMonitorEnabled(env);
  return {
    async take(sessionId, previous): Promise<CheckpointRecord> {
      try {
        if (closed) throw new Error("the run's checkpoints are closed");
        opened ??= openCheckpointStore({
          home,
          cwd,
          ...(limit === undefined ? {} : { maxFileBytes: limit }),
          monitor,
        });
        const store = await opened;
        // A previous id this store lacks (a log from another machine) gives a first checkpoint.
        const taken = await store.take({
          ref: sessionCheckpointRef(sessionId),
          ...(previous === undefined ? {} : { previous }),
        });
        return checkpointRecordOf(taken);
      } catch (error) {
        const failed = opened;
        opened = undefined;
        await failed?.then((store) => store.close()).catch(() => undefined);
        return { changed: [], skipped: (error as Error).message ?? String(error) };
      }
    },
    async close(): Promise<void> {
      closed = true;
      const store = opened;
      opened = undefined;
      await store?.then((open) => open.close()).catch(() => undefined);
    },
  };
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
