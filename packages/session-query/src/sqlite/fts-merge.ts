/**
 * How FTS5 merges the full-text index's segments while events are added. Normally FTS5 merges
 * as it goes (`automerge`), which keeps searches fast between syncs but rewrites each event's
 * postings once per level of its merge tree: filling an empty index that way writes about twice
 * as many bytes per event at 20,000 sessions as at 2,000 (1,139 against 616 bytes per event
 * measured), so a bigger home indexed at a lower rate. An empty index being filled is never
 * searched before its sync ends with one `optimize` (a single k-way merge of every segment), so
 * while filling it the merges along the way are skipped.
 *
 * After a sync, {@link FtsMerges} gives the index merge work bounded by what the sync added.
 */
import type Database from "better-sqlite3";
import type { WriterStatements } from "./writer-statements";

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

/**
 * Default number of newly indexed events after which the full-text index gets merge work. Bulk
 * ingestion leaves many segments behind, and a newest-first search must merge them all: measured
 * here, one full merge halves search latency (1.3 → 0.65 ms p50 at 250k events).
 */
const defaultOptimizeAfterEvents = 50_000;

/**
 * Incremental merge work per newly indexed event, in FTS5 leaf pages. A full `optimize` rewrites
 * the whole index, so running it after every large sync made the cost of adding data grow with
 * the data already indexed (200 sessions took 17 s on a 2,000-session index and 118 s on a
 * 20,000-session one); a merge bounded by what was just added keeps adding O(new).
 */
const mergePagesPerEvent = 1 / 8;

/** The writer's merge work after its syncs (one per connection, used by `indexer.ts`). */
export class FtsMerges {
  /** FTS5 `merge` statements run, for tests that the work stays bounded. */
  mergeRuns = 0;
  /** FTS5 `optimize`s of the event index run, for the same tests. */
  optimizeRuns = 0;
  /** Events indexed since the last FTS merge (in this process). */
  private unmergedEvents = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: Pick<WriterStatements, "countEvents">,
    private readonly optimizeAfterEvents = defaultOptimizeAfterEvents,
  ) {}

  /** Counts a committed sync's new events, and merges once enough are left unmerged. */
  afterSync(newEvents: number): void {
    this.unmergedEvents += newEvents;
    if (this.unmergedEvents >= this.optimizeAfterEvents) this.compact(this.unmergedEvents);
  }

  /** Ends the filling of an empty index: its one merge, and the `normal` mode back. */
  endBulk(): void {
    if (this.unmergedEvents > 0) this.optimize();
    this.db.transaction(() => setMergeMode(this.db, "normal"))();
  }

  /**
   * Merge work proportional to `newEvents`: a full `optimize` only when the new events are at
   * least half of the index (then it costs O(new) too: a first index, a rebuild), otherwise an
   * FTS5 `merge` bounded by the pages the new events wrote (see {@link mergePagesPerEvent}).
   */
  compact(newEvents: number): void {
    const total = this.statements.countEvents.get()?.count ?? 0;
    if (newEvents * 2 >= total) {
      this.optimize();
      return;
    }
    const pages = Math.max(16, Math.ceil(newEvents * mergePagesPerEvent));
    this.mergeWork.run(pages);
    this.db.exec("INSERT INTO session_fts(session_fts) VALUES('optimize')");
    this.unmergedEvents = 0;
  }

  private readonly mergeWork = {
    run: (pages: number) => {
      this.mergeRuns += 1;
      this.db.prepare("INSERT INTO event_fts(event_fts, rank) VALUES('merge', ?)").run(pages);
    },
  };

  /** Merges the full-text index into one segment (see {@link defaultOptimizeAfterEvents}). */
  optimize(): void {
    this.optimizeRuns += 1;
    this.db.exec("INSERT INTO event_fts(event_fts) VALUES('optimize')");
    this.db.exec("INSERT INTO session_fts(session_fts) VALUES('optimize')");
    this.unmergedEvents = 0;
  }
}
