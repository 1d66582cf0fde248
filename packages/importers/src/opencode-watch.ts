/**
 * Continuous import of opencode (≥ 1.2), whose sessions live in one SQLite database
 * (`opencode.db`, written through its `-wal`): a look stats those two files; only when one moved
 * does it ask the database what each session is now (`opencodeDatabaseFingerprints`) and import
 * the sessions whose answer changed since the last look.
 */
import { statSync } from "node:fs";
import type { SessionStore } from "@tapedeck/session-store";
import { type ImportSummary, importSessions } from "./import-run";
import type { FileState, WatchState } from "./source-watch";
import { opencodeDatabase, opencodeDatabaseFingerprints } from "./sources/opencode-sqlite";

/** What one look at opencode did. */
export interface OpencodeLook {
  summaries: ImportSummary[];
  statted: number;
  /** True when the state changed (worth saving). */
  dirty: boolean;
}

/**
 * Looks at the databases under `roots` (opencode's data folders) against `state` and imports the
 * sessions that changed; records in `state` what it imported (a session whose import failed is
 * not recorded, so the next look tries it again).
 */
export async function lookAtOpencode(
  store: SessionStore,
  roots: readonly string[],
  state: WatchState,
): Promise<OpencodeLook> {
  const look: OpencodeLook = { summaries: [], statted: 0, dirty: false };
  for (const root of roots) {
    const database = opencodeDatabase(root);
    if (database === undefined) continue;
    const files = [database, `${database}-wal`];
    const now = files.map((file) => {
      look.statted += 1;
      return stateOf(file);
    });
    if (files.every((file, index) => sameFile(state.files[file], now[index]))) continue;
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
    if (!failed) for (const [index, file] of files.entries()) record(state, file, now[index]);
    look.dirty = true;
  }
  return look;
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
