import type { CheckpointStore } from "./checkpoint-store";
import { runGit, splitNul } from "./git";
import { readBlobs } from "./read-blobs";

/** Default largest file {@link fileAt} returns the text of (256 KiB). */
export const DEFAULT_MAX_SHOWN_BYTES = 256 * 1024;

/** One file as a checkpoint recorded it. */
export type CheckpointFile =
  | { kind: "absent" }
  | { kind: "text"; text: string; bytes: number; mode: string }
  | { kind: "binary"; bytes: number; mode: string }
  | { kind: "too-large"; bytes: number; mode: string };

/**
 * The content of `filePath` (relative to the workspace root) in checkpoint `id`: its text, or
 * that it is binary (a NUL byte or invalid UTF-8), larger than `maxBytes`, or absent. Reads the
 * private store only. Throws `CHECKPOINT_NOT_FOUND` when the store lacks the checkpoint.
 */
export async function fileAt(
  store: CheckpointStore,
  id: string,
  filePath: string,
  maxBytes: number = DEFAULT_MAX_SHOWN_BYTES,
): Promise<CheckpointFile> {
  const tree = await store.requireTree(id);
  const listed = await runGit(store.place, ["ls-tree", "-z", "--long", tree, "--", filePath], {
    bare: true,
  });
  const entry = splitNul(listed.stdout).find((line) => line.endsWith(`\t${filePath}`));
  if (entry === undefined) return { kind: "absent" };
  const [mode = "", type = "", blob = "", size = ""] = entry.split("\t")[0]?.split(/ +/) ?? [];
  if (type !== "blob") return { kind: "absent" };
  const bytes = Number(size);
  if (bytes > maxBytes) return { kind: "too-large", bytes, mode };
  const content = (await readBlobs(store.place, [blob])).get(blob) ?? Buffer.alloc(0);
  if (content.includes(0)) return { kind: "binary", bytes, mode };
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(content);
    return { kind: "text", text, bytes, mode };
  } catch {
    return { kind: "binary", bytes, mode };
  }
}
