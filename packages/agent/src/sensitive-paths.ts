/**
 * Paths whose change needs a person even under `auto`: anything inside a `.git` folder. A line
 * added to `.git/config` (`core.fsmonitor`, `core.hooksPath`) or a file in `.git/hooks/` runs a
 * program at the person's next `git status` or commit: a write there is as strong as a command.
 */
import path from "node:path";

/** True when `absolute` lies inside a `.git` folder (any level, any case). */
export function isGitMetadataPath(absolute: string): boolean {
  return path
    .normalize(absolute)
    .split(/[\\/]/)
    .slice(0, -1)
    .concat(path.basename(absolute) === ".git" ? [".git"] : [])
    .some((segment) => segment.toLowerCase() === ".git");
}

/** The note an approval of such a write carries. */
export const GIT_METADATA_NOTE =
  "inside .git/, where a change can make git run programs (hooks, core.fsmonitor)";
