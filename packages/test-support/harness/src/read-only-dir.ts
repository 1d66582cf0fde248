import { execFileSync } from "node:child_process";

/** A directory made read-only for the processes a test spawns, and how. */
export interface ReadOnlyDir {
  /**
   * `bind-mount`: bound onto itself read-only (root: permission bits would not stop root's
   * writes); `chmod`: `chmod -R a-w` (enough for a user that is not root).
   */
  how: "bind-mount" | "chmod";
  /** Makes it writable again (call before removing it). */
  restore(): void;
}

/**
 * Makes `dir` read-only as a person meets it (a home on a read-only mount or without write
 * permission). As root, `chmod` changes nothing (root writes anyway), so the directory is bound
 * onto itself and remounted `ro`, which stops root too; a user that is not root gets
 * `chmod -R a-w`, which stops that user.
 */
export function readOnlyDir(dir: string): ReadOnlyDir {
  if (process.getuid?.() === 0) {
    execFileSync("mount", ["--bind", dir, dir], { stdio: "pipe" });
    try {
      execFileSync("mount", ["-o", "remount,bind,ro", dir], { stdio: "pipe" });
    } catch (error) {
      execFileSync("umount", [dir], { stdio: "pipe" });
      throw error;
    }
    return { how: "bind-mount", restore: () => execFileSync("umount", [dir], { stdio: "pipe" }) };
  }
  execFileSync("chmod", ["-R", "a-w", dir], { stdio: "pipe" });
  return {
    how: "chmod",
    restore: () => execFileSync("chmod", ["-R", "u+w", dir], { stdio: "pipe" }),
  };
}
