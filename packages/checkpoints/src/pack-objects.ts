import { readdir } from "node:fs/promises";
import path from "node:path";
import { type GitPlace, runGit } from "./git";

/** Object folders sampled (`00`–`03`: 1/64 of the object ids). */
const SAMPLED_FOLDERS = ["00", "01", "02", "03"];
/**
 * Loose objects in the sampled folders that start a pack: 16 there is ~1,024 loose objects in
 * all, which take one 4 KiB block each (≈ 4 MiB) on most file systems, whatever their size.
 */
export const LOOSE_SAMPLE_LIMIT = 16;

/**
 * Whether the private store holds enough loose objects to pack them, estimated the way
 * `git gc --auto` does: by counting a few of the 256 object folders (four `readdir`s).
 */
export async function tooManyLooseObjects(gitDir: string): Promise<boolean> {
  const counts = await Promise.all(
    SAMPLED_FOLDERS.map((folder) =>
      readdir(path.join(gitDir, "objects", folder)).then(
        (names) => names.filter((name) => !name.startsWith("tmp_")).length,
        () => 0,
      ),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0) >= LOOSE_SAMPLE_LIMIT;
}

/**
 * Packs the private store's loose objects (`git repack --geometric=2 -d -l`): the new trees
 * and blobs are stored as deltas against one another, and small packs roll up into bigger ones
 * so their number stays logarithmic. Borrowed objects (alternates) are never copied (`-l`);
 * nothing is pruned (reclaim's `gc` does that). Runs inside a checkpoint, so one in a few
 * hundred takes longer; a failure leaves the objects loose and is not the checkpoint's.
 */
export async function packLooseObjects(place: GitPlace): Promise<void> {
  await runGit(
    place,
    [
      "-c",
      "repack.writeBitmaps=false",
      "-c",
      "pack.writeBitmapHashCache=false",
      "repack",
      "--geometric=2",
      "-d",
      "-l",
      "-n",
      "-q",
    ],
    { bare: true },
  ).catch(() => undefined);
}
