import type { CheckpointChange } from "@tapedeck/session";
import { type GitPlace, runGit, splitNul } from "./git";

/** One file that differs between two trees. */
export interface TreeChange {
  path: string;
  change: CheckpointChange["change"];
  /** Old path of a rename. */
  from?: string;
  /** Mode and blob before (`000000` / zero id when added). */
  oldMode: string;
  oldBlob: string;
  /** Mode and blob after (`000000` / zero id when deleted). */
  newMode: string;
  newBlob: string;
}

/**
 * `git diff-tree -r` between two trees as {@link TreeChange}s. With `renames`, an exact or
 * similar file moved is one `renamed` change; without, a deletion and an addition.
 */
export async function treeChanges(
  place: GitPlace,
  from: string,
  to: string,
  renames: boolean,
): Promise<TreeChange[]> {
  if (from === to) return [];
  const result = await runGit(place, [
    "diff-tree",
    "-r",
    "-z",
    "--no-commit-id",
    renames ? "-M" : "--no-renames",
    from,
    to,
  ]);
  return parseRawDiff(result.stdout);
}

/**
 * What the private index holds that differs from tree `from` (`git diff-index --cached`), as
 * {@link TreeChange}s: the same list {@link treeChanges} gives against the index's tree, without
 * waiting for that tree to be written. With `reverse`, from the index to `from`.
 */
export async function indexChanges(
  place: GitPlace,
  from: string,
  renames: boolean,
  reverse = false,
): Promise<TreeChange[]> {
  const result = await runGit(place, [
    "diff-index",
    "--cached",
    "-z",
    renames ? "-M" : "--no-renames",
    ...(reverse ? ["-R"] : []),
    from,
  ]);
  return parseRawDiff(result.stdout);
}

/** Parses `git diff-* -z` raw output. */
function parseRawDiff(output: Buffer): TreeChange[] {
  const parts = splitNul(output);
  const changes: TreeChange[] = [];
  for (let index = 0; index < parts.length; ) {
    const meta = parts[index++] ?? "";
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", status = ""] = meta
      .replace(/^:/, "")
      .split(" ");
    const letter = status.charAt(0);
    const first = parts[index++] ?? "";
    if (letter === "R" || letter === "C") {
      const second = parts[index++] ?? "";
      changes.push({
        path: second,
        change: letter === "R" ? "renamed" : "added",
        ...(letter === "R" ? { from: first } : {}),
        oldMode,
        oldBlob,
        newMode,
        newBlob,
      });
      continue;
    }
    const change: TreeChange["change"] =
      letter === "A"
        ? "added"
        : letter === "D"
          ? "deleted"
          : oldBlob === newBlob && oldMode !== newMode
            ? "mode"
            : "modified";
    changes.push({ path: first, change, oldMode, oldBlob, newMode, newBlob });
  }
  return changes;
}
