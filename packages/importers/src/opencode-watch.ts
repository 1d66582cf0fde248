/**
 * Continuous import of opencode. From 1.2 its sessions live in one SQLite database
 * (`opencode.db`, written through its `-wal`): a look stats those two files; only when one moved
 * does it ask the database what each session is now (`opencodeDatabaseFingerprints`) and import
 * the sessions whose answer changed since the last look. Before 1.2 they lived in a `storage/`
 * folder of JSON files, which a look stats (`opencode-storage-watch.ts`) when there is no
 * database, as `tapedeck import opencode` reads the folder only then.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { SessionStore } from "@tapedeck/session-store";
import { type ImportSummary, importSessions } from "./import-run";
import { lookAtStorage } from "./opencode-storage-watch";
import type { FileState, WatchState } from "./source-watch";
import { opencodeDatabase, opencodeDatabaseFingerprints } from "./sources/opencode-sqlite";
import { opencodeStorageDir } from "./sources/opencode-storage";

/** What one look at opencode did. */
export interface OpencodeLook {
  summaries: ImportSummary[];
  statted: number;
  /** True when the state changed (worth saving). */
  dirty: boolean;
}

/**
 * Looks at the database, else the storage folder, under each of `roots` (opencode's data folders)
 * against `state` and imports the sessions that changed; records in `state` what it imported (a
 * session whose import failed is not recorded, so the next look tries it again). `now` is the
 * clock (which storage sessions are hot).
 */
export async function lookAtOpencode(
  store: SessionStore,
  roots: readonly string[],
  state: WatchState,
  now = Date.now(),
): Promise<OpencodeLook> {
  const look: OpencodeLook = { summaries: [], statted: 0, dirty: false };
  for (const root of roots) {
    const database = opencodeDatabase(root);
    if (database === undefined) {
      const storage = opencodeStorageDir(resolve(root));
      if (storage !== undefined) await lookAtStorageFolder(store, storage, state, now, look);
      continue;
    }
    const files = [database, `${database}-wal`];
    const current = files.map((file) => {
      look.statted += 1;
      return stateOf(file);
    });
    if (files.every((file, index) => sameFile(state.files[file], current[index]))) continue;
    let fingerprints: Map<string, string>;
    try {
      fingerprints = opencodeDatabaseFingerprints(database);
    } catch {
      continue; // Locked or damaged: the next look tries again (nothing recorded).
    }
    const units = state.units ?? {};
    state.units = units;
    const stale = new Map<string, string>();
    for (const [id, fingerprint] of fingerprints) {
      const unit = `${database}#${id}`;
      if (units[unit] !== fingerprint) stale.set(unit, fingerprint);
    }
    let failed = false;
    if (stale.size > 0) {
      const summary = await importSessions({
        store,
        source: "opencode",
        paths: [database],
        only: (unit) => stale.has(unit),
      });
      look.summaries.push(summary);
      for (const file of summary.files) {
        if (file.error === undefined && stale.has(file.path))
          units[file.path] = stale.get(file.path)!;
        else failed = true;
      }
    }
    if (!failed) for (const [index, file] of files.entries()) record(state, file, current[index]);
    look.dirty = true;
  }
  return look;
}

/** One look at a storage folder: the sessions that changed, imported (`importSessions`' `only`). */
async function lookAtStorageFolder(
  store: SessionStore,
  storage: string,
  state: WatchState,
  now: number,
  look: OpencodeLook,
): Promise<void> {
  const found = lookAtStorage(storage, state, now);
  look.statted += found.statted;
  if (found.dirty) look.dirty = true;
  if (found.changed.size === 0) return;
  const summary = await importSessions({
    store,
    source: "opencode",
    paths: [storage],
    only: (unit) => found.changed.has(unit),
  });
  look.summaries.push(summary);
  const units = state.units ?? {};
  state.units = units;
  for (const file of summary.files) {
    const summed = found.changed.get(file.path);
    if (summed === undefined) continue;
    // A failed import is remembered as failed: tried again at every look while the session is hot.
    units[file.path] =
      file.error === undefined ? summed : `${summed.slice(0, summed.lastIndexOf("|"))}|failed`;
  }
  look.dirty = true;
}

function stateOf(path: string): FileState | undefined {
  try {
    const stats = statSync(path);
    return { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
  } catch {
    return undefined;
  }
}

function sameFile(known: FileState | undefined, current: FileState | undefined): boolean {
  if (known === undefined || current === undefined) return known === current;
  return (
    known.size === current.size && known.mtimeMs === current.mtimeMs && known.ino === current.ino
  );
}

function record(state: WatchState, path: string, current: FileState | undefined): void {
  if (current === undefined) delete state.files[path];
  else state.files[path] = current;
}
