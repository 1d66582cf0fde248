import { CheckpointError } from "./errors";
import { type GitPlace, runGit } from "./git";

/**
 * Reads many blobs with one `git cat-file --batch`. Returns them by id; throws
 * `CHECKPOINT_NOT_FOUND` naming the first id the store (with what it borrows) lacks.
 */
export async function readBlobs(
  place: GitPlace,
  ids: readonly string[],
): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const { stdout } = await runGit(place, ["cat-file", "--batch"], {
    input: `${unique.join("\n")}\n`,
  });
  let offset = 0;
  for (const id of unique) {
    const end = stdout.indexOf(10, offset);
    const header = stdout.subarray(offset, end).toString("utf8");
    const [, type, size] = header.split(" ");
    if (type === undefined || type === "missing" || size === undefined) {
      throw new CheckpointError(
        "CHECKPOINT_NOT_FOUND",
        `the object ${id.slice(0, 12)} is missing from the checkpoint store (the repository it borrowed from may have been pruned)`,
      );
    }
    const length = Number(size);
    blobs.set(id, Buffer.from(stdout.subarray(end + 1, end + 1 + length)));
    offset = end + 1 + length + 1;
  }
  return blobs;
}
