/**
 * Opening a workspace's checkpoint store: the workspace found and checked, the private bare
 * repository made on first use, its index seeded from the user's, its settings synced, the
 * file-system monitor started when asked.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { CheckpointStore } from "./checkpoint-store";
import { CheckpointError } from "./errors";
import { FsMonitor, type FsMonitorOptions } from "./fs-monitor";
import { runGit } from "./git";
import { syncPrivateSettings } from "./private-settings";
import { findWorkspace, refusedWorkspace, workspaceStoreDir } from "./workspace";

/** Default size limit of one file: larger files are left out of checkpoints (10 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Paths one checkpoint may record (new or changed since the store's last one; every file for the
 * first, unless seeded from the user's git index): with more, that checkpoint is skipped.
 */
export const DEFAULT_MAX_FILES = 200_000;

/** Options of {@link openCheckpointStore}. */
export interface OpenCheckpointStoreOptions {
  /** The Tapedeck home (`$TAPEDECK_HOME`). */
  home: string;
  /** A folder of the workspace (its git root, else itself, is what is checkpointed). */
  cwd: string;
  /** Files larger than this are left out (default {@link DEFAULT_MAX_FILE_BYTES}). */
  maxFileBytes?: number;
  /** Default {@link DEFAULT_MAX_FILES}. */
  maxFiles?: number;
  /**
   * Light checkpoints (default true; `TAPEDECK_CHECKPOINT_LIGHT=off` turns them off): after a
   * session's first (full) checkpoint in this store object, the next ones are records of the
   * changed files appended to `<store>/light-checkpoints`, their trees built when read.
   */
  light?: boolean;
  /**
   * Watch the workspace (inotify) so each checkpoint's `git status` looks only at what changed
   * (`fs-monitor.ts`); `true` or the monitor's options. For a process that takes several
   * checkpoints (a run); call {@link CheckpointStore.close} when done. Default: no monitor.
   */
  monitor?: boolean | FsMonitorOptions;
}

/**
 * Opens (creating on first use) the checkpoint store of the workspace of `cwd`. Throws
 * `CheckpointError` (`WORKSPACE_REFUSED`, `GIT_MISSING`, `GIT_FAILED`).
 */
export async function openCheckpointStore(
  options: OpenCheckpointStoreOptions,
): Promise<CheckpointStore> {
  const workspace = findWorkspace(options.cwd);
  const refused =
    workspace.userObjects === undefined ? refusedWorkspace(workspace.root) : undefined;
  if (refused !== undefined) throw new CheckpointError("WORKSPACE_REFUSED", refused);
  const dir = workspaceStoreDir(options.home, workspace.root);
  const store = new CheckpointStore(workspace, dir, {
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    maxFiles: options.maxFiles ?? DEFAULT_MAX_FILES,
    home: options.home,
    light: options.light ?? process.env.TAPEDECK_CHECKPOINT_LIGHT !== "off",
  });
  const gitDir = store.place.gitDir;
  if (!existsSync(path.join(gitDir, "HEAD"))) {
    await mkdir(dir, { recursive: true });
    await runGit(store.place, ["init", "--quiet", "--bare", gitDir], { bare: true });
    await writeFile(path.join(dir, "workspace"), `${workspace.root}\n`);
  }
  if (workspace.userIndex !== undefined && !existsSync(store.place.indexFile)) {
    await seedIndex(store, workspace.userIndex);
  }
  await syncPrivateSettings(store, options.home);
  if (options.monitor !== undefined && options.monitor !== false) {
    // A monitor that cannot start (no inotify watch left, a cookie folder that cannot be made)
    // leaves the store unmonitored: every checkpoint then checks every file.
    store.monitor = await FsMonitor.start(
      store.place,
      dir,
      options.monitor === true ? {} : options.monitor,
    ).catch(() => undefined);
  }
  return store;
}

/**
 * Starts the private index as a copy of the user's (read, never written), so unchanged files keep
 * their stat data and blob ids. An index git cannot read here (a split index) is dropped: the
 * first checkpoint then hashes every file once.
 */
async function seedIndex(store: CheckpointStore, userIndex: string): Promise<void> {
  const temp = `${store.place.indexFile}.seed`;
  try {
    await copyFile(userIndex, temp);
    await runGit({ ...store.place, indexFile: temp }, ["ls-files", "--stage", "--", ".gitignore"]);
    await rename(temp, store.place.indexFile);
  } catch {
    await rm(temp, { force: true });
  }
}
