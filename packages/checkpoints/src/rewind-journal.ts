import { open, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { CheckpointStore } from "./checkpoint-store";

const rewindEntrySchema = z.looseObject({
  at: z.string(),
  /** The checkpoint of the files as they were just before this rewind changed any. */
  undo: z.string(),
  /** The checkpoint restored. */
  target: z.string(),
  sessionId: z.string().optional(),
  seq: z.number().int().optional(),
  /** The fork the rewind made, if any. */
  forkSessionId: z.string().optional(),
  /** `undo` when this entry is itself an undo. */
  kind: z.enum(["rewind", "undo"]).optional(),
});
/** One rewind of a workspace, as its store's `rewinds.jsonl` keeps it. */
export type RewindEntry = z.infer<typeof rewindEntrySchema>;

function journalPath(store: CheckpointStore): string {
  return path.join(store.dir, "rewinds.jsonl");
}

/**
 * Appends `entry` to the workspace's rewind journal and fsyncs it: written before the first file
 * changes, so a rewind killed midway can always be undone.
 */
export async function appendRewind(store: CheckpointStore, entry: RewindEntry): Promise<void> {
  const handle = await open(journalPath(store), "a");
  try {
    await handle.write(`${JSON.stringify(entry)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The workspace's rewinds, oldest first (unreadable lines skipped). */
export function readRewinds(store: CheckpointStore): Promise<RewindEntry[]> {
  return readRewindsAt(store.dir);
}

/** The rewinds journaled in the workspace store folder `dir`. */
export async function readRewindsAt(dir: string): Promise<RewindEntry[]> {
  const text = await readFile(path.join(dir, "rewinds.jsonl"), "utf8").catch(() => "");
  const entries: RewindEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed = rewindEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      // a torn last line of a crash: skipped
    }
  }
  return entries;
}
