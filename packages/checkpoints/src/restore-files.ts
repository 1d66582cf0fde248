import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readdir, rename, rm, rmdir, symlink, unlink } from "node:fs/promises";
import path from "node:path";
import type { CheckpointStore } from "./checkpoint-store";
import { readBlobs } from "./read-blobs";
import type { TreeChange } from "./tree-diff";

/** Suffix of the temp files a restore writes before renaming them into place. */
export const RESTORE_TEMP_SUFFIX = ".tapedeck-restore.tmp";

/** What a restore did, file by file. */
export interface RestoreResult {
  /** Relative paths written (added or modified). */
  written: string[];
  /** Relative paths removed. */
  deleted: string[];
}

async function removeEmptyParents(root: string, file: string): Promise<void> {
  for (
    let dir = path.dirname(file);
    dir !== root && dir.startsWith(root);
    dir = path.dirname(dir)
  ) {
    try {
      if ((await readdir(dir)).length > 0) return;
      await rmdir(dir);
    } catch {
      return;
    }
  }
}

/** Makes `dir` a folder: a file or link standing where a folder must be is removed first. */
async function ensureFolder(root: string, dir: string): Promise<void> {
  const relative = path.relative(root, dir);
  if (relative === "") return;
  let current = root;
  for (const part of relative.split(path.sep)) {
    current = path.join(current, part);
    try {
      const stat = await lstat(current);
      if (stat.isDirectory()) continue;
      await unlink(current);
    } catch {
      // missing: made below
    }
    await mkdir(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
}

/** A temp file next to `target`, written and fsynced, waiting for its rename. */
interface StagedFile {
  temp: string;
  target: string;
}

/** Writes `content` to a temp file beside `target` and fsyncs it (a symlink for mode 120000). */
async function stageFile(target: string, mode: string, content: Buffer): Promise<StagedFile> {
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target).slice(0, 80)}.${process.pid}.${randomBytes(4).toString("hex")}${RESTORE_TEMP_SUFFIX}`,
  );
  try {
    if (mode === "120000") {
      await symlink(content.toString("utf8"), temp);
    } else {
      const permissions = mode === "100755" ? 0o755 : 0o644;
      const handle = await open(temp, "wx", permissions);
      try {
        await handle.writeFile(content);
        await handle.chmod(permissions);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { temp, target };
}

/** Renames a staged file over its target (a folder standing there is removed first). */
async function commitFile(staged: StagedFile): Promise<void> {
  const existing = await lstat(staged.target).catch(() => undefined);
  if (existing?.isDirectory()) await rm(staged.target, { recursive: true, force: true });
  await rename(staged.temp, staged.target);
}

/**
 * Puts the files of `changes` (from the current state to the target) into the target state:
 * deletions first, then each written file via temp + fsync + rename. Files no change names
 * (ignored, too large, unchanged) are never touched. Submodule entries are skipped.
 * `journaled` (the undo entry being made durable) is awaited before the first workspace change:
 * the blobs are read meanwhile.
 */
export async function restoreFiles(
  store: CheckpointStore,
  changes: readonly TreeChange[],
  journaled: Promise<void> = Promise.resolve(),
): Promise<RestoreResult> {
  const root = store.workspace.root;
  const result: RestoreResult = { written: [], deleted: [] };
  const writes = changes.filter(
    (change) => change.change !== "deleted" && change.newMode !== "160000",
  );
  const [blobs] = await Promise.all([
    readBlobs(
      store.place,
      writes.map((change) => change.newBlob),
    ),
    journaled,
  ]);
  for (const change of changes) {
    if (change.change !== "deleted" || change.oldMode === "160000") continue;
    const file = path.join(root, change.path);
    await rm(file, { force: true });
    result.deleted.push(change.path);
    await removeEmptyParents(root, file);
  }
  const folders = [...new Set(writes.map((change) => path.dirname(path.join(root, change.path))))];
  await Promise.all(folders.map((dir) => ensureFolder(root, dir)));
  // Every new version is durable in its temp file before the first rename: a crash at any point
  // leaves each file old or new (and temp files named *.tapedeck-restore.tmp, never recorded).
  // The temps are written and fsynced side by side, then renamed side by side.
  const staged = await stageAll(
    writes.map((change) => ({
      target: path.join(root, change.path),
      mode: change.newMode,
      content: blobs.get(change.newBlob) ?? Buffer.alloc(0),
    })),
  );
  const renames = await Promise.allSettled(staged.map((file) => commitFile(file)));
  const failed = renames.find((entry) => entry.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(staged.map((file) => rm(file.temp, { force: true })));
    throw failed.reason;
  }
  result.written = writes.map((change) => change.path);
  return result;
}

/** A restore's temp file: `.<name>.<pid>.<8 hex>.tapedeck-restore.tmp` (older: no pid). */
const TEMP_NAME = /^\..*?(?:\.(\d+))?\.[0-9a-f]{8}\.tapedeck-restore\.tmp$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes, from the folders of `changes` (workspace-relative), the temp files a killed restore
 * left there (its process is gone): a restore killed mid-way (kill -9) leaves each file old or
 * new, and its temps until the next restore (the undo) sweeps them. Temps of a live process stay.
 */
export async function sweepKilledTemps(
  root: string,
  changes: readonly { path: string }[],
): Promise<void> {
  const folders = new Set(changes.map((change) => path.dirname(path.join(root, change.path))));
  await Promise.all(
    [...folders].map(async (dir) => {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        const match = TEMP_NAME.exec(name);
        if (match === null) continue;
        const pid = match[1] === undefined ? undefined : Number(match[1]);
        if (pid !== undefined && pid !== process.pid && alive(pid)) continue;
        if (pid === process.pid) continue; // ours were renamed; a name like it is not ours to judge
        await rm(path.join(dir, name), { force: true });
      }
    }),
  );
}

/** Stages every file at once; when one fails, the temps already written are removed. */
async function stageAll(
  files: readonly { target: string; mode: string; content: Buffer }[],
): Promise<StagedFile[]> {
  const settled = await Promise.allSettled(
    files.map((file) => stageFile(file.target, file.mode, file.content)),
  );
  const staged = settled.flatMap((entry) => (entry.status === "fulfilled" ? [entry.value] : []));
  const failed = settled.find((entry) => entry.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(staged.map((file) => rm(file.temp, { force: true })));
    throw failed.reason;
  }
  return staged;
}
