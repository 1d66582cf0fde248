import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mergeModeOf, setMergeMode } from "./fts-merge";
import { Indexer } from "./indexer";
import { prepareSchema } from "./schema";

describe("FTS merge mode while indexing", () => {
  let home: string;
  let db: Database.Database;

  beforeEach(async () => {
    home = fs.mkdtempSync(join(tmpdir(), "tapedeck-merge-"));
    db = new Database(":memory:");
    prepareSchema(db);
    const store = createSessionStore({ home });
    // Enough distinct words that FTS5 flushes several segments (about 1 MB of terms each) for the
    // final merge to free pages.
    let word = 0;
    const words = (count: number) =>
      Array.from({ length: count }, () => `w${(word++).toString(36)}`).join(" ");
    for (const name of ["heron", "ibis", "stork"]) {
      const log = eventLogBuilder().turn().user(`about the ${name}`);
      for (let index = 0; index < 20; index += 1) log.assistant(words(5_000));
      await store.adoptLog(log.end().jsonl());
    }
  });
  afterEach(() => {
    db.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  /** Syncs, noting the merge mode in force after each session. */
  async function syncNotingModes(indexer: Indexer): Promise<string[]> {
    const modes: string[] = [];
    await indexer.syncAll(() => modes.push(mergeModeOf(db)));
    return modes;
  }

  it("fills an empty index without merging along the way, then merges once, frees nothing and goes back to normal", async () => {
    const indexer = new Indexer(db, createSessionStore({ home }));
    expect(mergeModeOf(db)).toBe("normal");
    expect(new Set(await syncNotingModes(indexer))).toEqual(new Set(["bulk"]));
    expect(indexer.merges.optimizeRuns).toBe(1);
    expect(mergeModeOf(db)).toBe("normal");
    // A new index gives back the pages the merge freed: the file is no bigger than its data.
    expect(db.pragma("auto_vacuum", { simple: true })).toBe(2);
    expect(db.pragma("freelist_count", { simple: true })).toBe(0);
  });

  it("adds to an index with incremental merging, and puts back a bulk mode a cut-short fill left", async () => {
    const store = createSessionStore({ home });
    const indexer = new Indexer(db, store);
    await indexer.syncAll();
    db.transaction(() => setMergeMode(db, "bulk"))();
    expect(mergeModeOf(db)).toBe("bulk");
    await store.adoptLog(eventLogBuilder().turn().user("about the crane").end().jsonl());
    expect(new Set(await syncNotingModes(indexer))).toEqual(new Set(["normal"]));
    expect(indexer.merges.optimizeRuns).toBe(1);
    expect(mergeModeOf(db)).toBe("normal");
  });
});

describe("FTS segments written by a sync", () => {
  it("writes the rows of a sync as one segment, in time order or overlapping in time", async () => {
    const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-segments-"));
    const db = new Database(":memory:");
    try {
      prepareSchema(db);
      const store = createSessionStore({ home });
      const segments = () =>
        db.prepare<[], { n: number }>("SELECT count(DISTINCT segid) AS n FROM event_fts_idx").get()!
          .n;
      let hour = 0;
      /** Sessions each an hour after the last, or (`overlapping`) all starting in one instant. */
      const addSessions = async (count: number, overlapping = false) => {
        if (overlapping) hour += 1;
        for (let index = 0; index < count; index += 1) {
          if (!overlapping) hour += 1;
          const start = new Date(Date.UTC(2026, 0, 1, hour));
          const log = eventLogBuilder({ start }).turn().user(`heron ${hour}`).assistant("noted");
          await store.adoptLog(log.end().jsonl());
        }
      };
      const indexer = new Indexer(db, store);
      await addSessions(1);
      await indexer.syncAll();
      expect(segments()).toBe(1);
      // FTS5 writes its pending rows as a segment at a commit, but also at every statement
      // savepoint (a trigger on `sessions` opened one per session: see BUMP_GENERATION) and
      // before any rowid not above the last one written: the rowids are negated ids, lower for
      // each later event, so written in the order the sync reads them (oldest first in each
      // session) they would leave a segment per event (see pending-fts.ts).
      await addSessions(3);
      await indexer.syncAll();
      expect(segments()).toBe(2);
      // Events of sessions that overlap in time: each session's ids fall between the others'.
      await addSessions(3, true);
      await indexer.syncAll();
      expect(segments()).toBe(3);
      // Each row found by the negation of its event's id.
      const joined = db
        .prepare(
          "SELECT count(*) FROM event_fts f JOIN events e ON e.id = -f.rowid WHERE event_fts MATCH 'noted'",
        )
        .pluck()
        .get();
      expect(joined).toBe(7);
    } finally {
      db.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
