import { execFileSync } from "node:child_process";

/**
 * Runs `git …args` in `cwd` for a test that builds a repository (a checkpointed workspace), with
 * a fixed author and committer so commits need no git configuration; output is discarded.
 *
 * @throws when git exits non-zero
 */
export function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    stdio: "ignore",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
}
