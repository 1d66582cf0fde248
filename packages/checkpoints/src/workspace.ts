import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The workspace a checkpoint covers and what it may borrow from the user's repository. */
export interface CheckpointWorkspace {
  /** Canonical root: the git root above the cwd, else the cwd. */
  root: string;
  /** The user's repository's `objects` folder (read only, borrowed through alternates). */
  userObjects?: string;
  /** The user's `info/exclude` (read only; copied into the private store's own). */
  userExclude?: string;
  /**
   * The user's index (read only): copied once as the private index's start, so the first
   * checkpoint rehashes only the files whose stat data changed.
   */
  userIndex?: string;
}

/** Reads a `.git` file (`gitdir: X`) or folder and returns the git folder, or undefined. */
function gitFolderOf(root: string): string | undefined {
  const dotGit = path.join(root, ".git");
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dotGit);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return dotGit;
  if (!stat.isFile()) return undefined;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
  if (match?.[1] === undefined) return undefined;
  return path.resolve(root, match[1]);
}

/** The common git folder of a worktree's git folder (`commondir`), else the folder itself. */
function commonFolderOf(gitFolder: string): string {
  try {
    const common = readFileSync(path.join(gitFolder, "commondir"), "utf8").trim();
    return path.resolve(gitFolder, common);
  } catch {
    return gitFolder;
  }
}

/**
 * Finds the workspace of `cwd`: the nearest folder above it holding `.git` (a folder, or a file
 * of a linked worktree), else `cwd` itself. Reads only; runs no git command in the user's repo.
 */
export function findWorkspace(cwd: string): CheckpointWorkspace {
  const start = realpathSync(cwd);
  for (let dir = start; ; dir = path.dirname(dir)) {
    const gitFolder = gitFolderOf(dir);
    if (gitFolder !== undefined) {
      const common = commonFolderOf(gitFolder);
      const objects = path.join(common, "objects");
      const exclude = path.join(common, "info", "exclude");
      const index = path.join(gitFolder, "index");
      return {
        ...(existsSync(index) ? { userIndex: index } : {}),
        root: dir,
        ...(existsSync(objects) ? { userObjects: objects } : {}),
        ...(existsSync(exclude) ? { userExclude: exclude } : {}),
      };
    }
    if (path.dirname(dir) === dir) return { root: start };
  }
}

/** Why a workspace is never checkpointed (undefined: it may be). */
export function refusedWorkspace(root: string): string | undefined {
  if (path.dirname(root) === root) return "the workspace is the filesystem root";
  let home: string;
  try {
    home = realpathSync(os.homedir());
  } catch {
    home = os.homedir();
  }
  if (root === home) return "the workspace is the home folder and is not a git repository";
  return undefined;
}

/** The store folder of one workspace: `<home>/checkpoints/<sha256(root), 16 hex>`. */
export function workspaceStoreDir(home: string, root: string): string {
  const digest = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return path.join(home, "checkpoints", digest);
}
