import { copyFile, mkdir, stat } from "node:fs/promises";
import path from "node:path";
import type { TreeChange } from "./tree-diff";

const ZERO = /^0+$/;

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copies into the private store each new blob of `changes` that git found as a loose object of
 * the user's repository instead of writing it: a loose object no ref of the user's reaches (a
 * `git add` never committed) is what the user's gc prunes, and a checkpoint must not lose it.
 * Objects in the user's packs are borrowed as they are (see architecture/checkpoints.md).
 */
export async function keepBorrowedObjects(
  gitDir: string,
  userObjects: string,
  changes: readonly TreeChange[],
): Promise<void> {
  const blobs = new Set(
    changes
      .filter((change) => change.change !== "deleted" && !ZERO.test(change.newBlob))
      .map((change) => change.newBlob),
  );
  for (const blob of blobs) {
    const relative = path.join(blob.slice(0, 2), blob.slice(2));
    const own = path.join(gitDir, "objects", relative);
    if (await exists(own)) continue;
    const theirs = path.join(userObjects, relative);
    if (!(await exists(theirs))) continue;
    await mkdir(path.dirname(own), { recursive: true });
    await copyFile(theirs, own);
  }
}
