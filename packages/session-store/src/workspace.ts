import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

function canonical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    // A cwd that does not exist (tests, a deleted checkout) keeps its absolute form.
    return resolve(path);
  }
}

/**
 * The default `workspaceId` of a session started in `cwd`: the canonical path (symlinks resolved)
 * of the nearest directory at or above `cwd` that holds a `.git` entry (a directory, or a file in
 * a worktree or submodule); without one, the canonical path of `cwd` itself.
 */
export function defaultWorkspaceId(cwd: string): string {
  const start = canonical(cwd);
  let directory = start;
  for (;;) {
    if (existsSync(join(directory, ".git"))) return directory;
    const parent = dirname(directory);
    if (parent === directory) return start;
    directory = parent;
  }
}
