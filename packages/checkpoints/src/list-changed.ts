import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type GitPlace, runGit, splitNul } from "./git";

/**
 * Fields before the path in `git status --porcelain=v2` records: `1 XY sub mH mI mW hH hI path`,
 * `2 … Xscore path`, `u XY sub m1 m2 m3 mW h1 h2 h3 path`.
 */
const FIELDS_BEFORE_PATH: Readonly<Record<string, number>> = { "1": 8, "2": 9, u: 10 };

/** The path after `count` space-separated fields of `record`. */
function pathAfter(record: string, count: number): string {
  let at = 0;
  for (let field = 0; field < count; field += 1) {
    at = record.indexOf(" ", at) + 1;
    if (at === 0) return "";
  }
  return record.slice(at);
}

/**
 * Parses `git status --porcelain=v2 -z` into the paths whose work-tree file differs from the
 * index (modified, deleted, type or mode changed, unmerged) and the untracked files. What differs
 * only between the index and `HEAD` is already recorded and is left out.
 */
export function parseStatus(output: Buffer): string[] {
  const records = splitNul(output);
  const paths: string[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] ?? "";
    const kind = record.charAt(0);
    if (kind === "?") {
      paths.push(record.slice(2));
      continue;
    }
    const fields = FIELDS_BEFORE_PATH[kind];
    if (fields === undefined) continue; // "!" ignored, "#" headers
    const worktree = record.charAt(3);
    const file = pathAfter(record, fields);
    if (kind === "2") {
      const from = records[index + 1] ?? "";
      index += 1;
      if (worktree !== ".") paths.push(file, from);
      continue;
    }
    if (kind === "u" || worktree !== ".") paths.push(file);
  }
  return paths;
}

/**
 * Lists what changed in the workspace since the private index last recorded it, in one git
 * process: `git status` compares every tracked file's stat data with the index (the `lstat`s
 * spread over threads: `core.preloadIndex`) and finds new files through the untracked cache
 * (`core.untrackedCache`: only folders whose mtime moved are read again), which it keeps in the
 * private index (the only optional lock we allow: its own index). The store's `HEAD` names the
 * last checkpoint (see {@link pointHead}), so the index-to-`HEAD` half of `status` is nearly free.
 *
 * `only`: the paths a file-system monitor saw change (`fs-monitor.ts`), given as literal
 * pathspecs (a folder stands for everything under it): git then `lstat`s and reads only those
 * (the untracked cache is not used with a pathspec). An empty list runs no process.
 */
export async function listChanged(place: GitPlace, only?: readonly string[]): Promise<string[]> {
  if (only !== undefined && only.length === 0) return [];
  const result = await runGit(
    place,
    [
      "--literal-pathspecs",
      "-c",
      "status.showUntrackedFiles=all",
      "-c",
      "core.preloadIndex=true",
      "status",
      "--porcelain=v2",
      "-z",
      "--no-renames",
      "--ignore-submodules=all",
      "--untracked-files=all",
      ...(only === undefined ? [] : ["--", ...only]),
    ],
    { optionalLocks: true },
  );
  return parseStatus(result.stdout);
}

/**
 * Points the private store's `HEAD` at checkpoint `id` (detached; a temp file and a rename), so
 * the next {@link listChanged} compares the index with a tree that is nearly the same.
 */
export async function pointHead(gitDir: string, id: string): Promise<void> {
  const temp = path.join(gitDir, `HEAD.tmp_${randomBytes(6).toString("hex")}`);
  try {
    await writeFile(temp, `${id}\n`);
    await rename(temp, path.join(gitDir, "HEAD"));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
