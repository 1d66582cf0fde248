import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

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

/**
 * Makes `cwd` a git repository whose one commit (`init`) holds `files` (path relative to `cwd` →
 * content; `.gitignore` among them applies to the commit).
 *
 * @throws when a file cannot be written or git exits non-zero
 */
export function gitRepo(cwd: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(path.join(cwd, name), content);
  }
  git(cwd, "init", "-q");
  git(cwd, "add", "-A");
  git(cwd, "commit", "-qm", "init");
}
