/**
 * Continuous import's state (`<home>/import/`: one file per source, the grown-source records
 * under `grown/` that let a grown file cost its new lines, the auto-import marker) as a kind of
 * `tapedeck storage`. Host names the folder (`importStateDir`); the importers write inside it.
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { importStateDir } from "./auto-import-setting";
import type { StorageContributor, StorageUsage } from "./storage-contributor";

/** The row's label in `tapedeck storage`. */
export const IMPORT_STATE_KIND = "import state";

/** Bytes and files under `folder`, walked without following links (0, 0 when it is absent). */
async function folderUsage(folder: string): Promise<StorageUsage> {
  const usage: StorageUsage = { bytes: 0, files: 0 };
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      const inner = await folderUsage(full);
      usage.bytes += inner.bytes;
      usage.files += inner.files;
    } else if (entry.isFile()) {
      const stat = await lstat(full).catch(() => undefined);
      if (stat === undefined) continue;
      usage.bytes += stat.size;
      usage.files += 1;
    }
  }
  return usage;
}

/**
 * Import state's {@link StorageContributor} of `home`: counted, never reclaimed (a record is what
 * the next look needs; one whose session is gone only makes that file convert whole again).
 */
export function importStateContributor(home: string): StorageContributor {
  return {
    kind: IMPORT_STATE_KIND,
    usage: () => folderUsage(importStateDir(home)),
    async reclaim() {
      return { bytes: 0 };
    },
  };
}
