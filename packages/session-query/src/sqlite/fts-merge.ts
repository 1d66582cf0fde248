/**
 * How FTS5 merges the full-text index's segments while events are added. Normally FTS5 merges
 * as it goes (`automerge`), which keeps searches fast between syncs but rewrites each event's
 * postings once per level of its merge tree: filling an empty index that way writes about twice
 * as many bytes per event at 20,000 sessions as at 2,000 (1,139 against 616 bytes per event
 * measured), so a bigger home indexed at a lower rate. An empty index being filled is never
 * searched before its sync ends with one `optimize` (a single k-way merge of every segment), so
 * while filling it the merges along the way are skipped.
 */
import type Database from "better-sqlite3";

/** FTS5 settings of a mode (`automerge`, `crisismerge`; SQLite's defaults are 4 and 16). */
const modes = {
  /** Incremental merging: what a searched index needs. */
  normal: { automerge: 4, crisismerge: 16 },
  /**
   * Filling an empty index: no automatic merges, and a level is merged only when it holds 64
   * segments (a bound on open segments until the final `optimize`).
   */
  bulk: { automerge: 0, crisismerge: 64 },
} as const;

/** A merge mode of {@link setMergeMode}. */
export type MergeMode = keyof typeof modes;

type Setting = keyof (typeof modes)["normal"];

/** The merge settings stored in the event index (SQLite's default where none is stored). */
function storedSettings(db: Database.Database): Record<Setting, number> {
  const rows = db.prepare<[], { k: string; v: unknown }>("SELECT k, v FROM event_fts_config").all();
  const stored = new Map(rows.map((row) => [row.k, Number(row.v)]));
  return {
    automerge: stored.get("automerge") ?? modes.normal.automerge,
    crisismerge: stored.get("crisismerge") ?? modes.normal.crisismerge,
  };
}

/**
 * Puts the event index in `mode`, writing only settings that differ (a sync that changes nothing
 * writes nothing). Runs inside the caller's transaction; the settings persist in the database, so
 * a bulk fill cut short is put back to `normal` by the next sync.
 */
export function setMergeMode(db: Database.Database, mode: MergeMode): void {
  const stored = storedSettings(db);
  for (const [key, value] of Object.entries(modes[mode]) as [Setting, number][]) {
    if (stored[key] === value) continue;
    // FTS5 wants an integer: better-sqlite3 binds a JavaScript number as a real.
    db.prepare("INSERT INTO event_fts (event_fts, rank) VALUES (?, ?)").run(key, BigInt(value));
  }
}

/** The event index's merge mode as stored (`other` for settings of neither mode). */
export function mergeModeOf(db: Database.Database): MergeMode | "other" {
  const stored = storedSettings(db);
  const modeNames = Object.keys(modes) as MergeMode[];
  return (
    modeNames.find((mode) =>
      (Object.entries(modes[mode]) as [Setting, number][]).every(
        ([key, value]) => stored[key] === value,
      ),
    ) ?? "other"
  );
}
