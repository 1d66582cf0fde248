import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEvent } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEYS_PER_MS } from "./schema";
import { createSqliteQueryEngine } from "./sqlite-engine";

/**
 * Imports keep their source's times, and a source without them (an old Codex rollout, a damaged
 * file) gives every event one time. Past {@link KEYS_PER_MS} events in one millisecond the
 * index's time-keyed ids collide, and each collision walked the taken ids one lookup at a time
 * from its own slot: 4,000 events of one millisecond took 16 s to index, 80,000 never finished.
 */
describe("events that share one millisecond", () => {
  const statement = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as {
    get: (...args: unknown[]) => unknown;
  };
  afterEach(() => vi.restoreAllMocks());

  it("are indexed with a bounded number of lookups each, and all found", async () => {
    const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-same-ms-"));
    fs.mkdirSync(join(home, "sessions"));
    const log = eventLogBuilder().turn();
    const turns = KEYS_PER_MS * 2;
    for (let index = 0; index < turns; index += 1) log.user(`prompt ${index} walrus`);
    log.end();
    const ts = log.events[0]!.ts;
    const events = log.events.map((event): SessionEvent => ({ ...event, ts }));
    fs.writeFileSync(
      join(home, "sessions", `${log.header.sessionId}.jsonl`),
      [log.header, ...events].map((line) => `${JSON.stringify(line)}\n`).join(""),
    );
    const engine = createSqliteQueryEngine({
      path: join(home, "index.sqlite"),
      store: createSessionStore({ home }),
    });
    try {
      const lookups = vi.spyOn(statement, "get");
      expect(await engine.sync()).toMatchObject({ eventsIndexed: events.length });
      // Linear probing from each event's own slot made this about events² / 2 (≈ 2,000,000).
      expect(lookups.mock.calls.length).toBeLessThan(events.length * 4);
      for (const index of [0, KEYS_PER_MS, turns - 1]) {
        const hits = await engine.searchEvents({ all: true }, { text: `${index} walrus` });
        expect(hits.items.map((hit) => hit.event)).toMatchObject([
          { content: `prompt ${index} walrus` },
        ]);
      }
    } finally {
      engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
