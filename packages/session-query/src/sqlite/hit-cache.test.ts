import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEvent, SessionHeader } from "@tapedeck/session";
import { type EventLogBuilder, eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore, type LogReader, type SessionStore } from "@tapedeck/session-store";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HitCache, MAX_OPEN_LOGS } from "./hit-cache";
import { SCHEMA_VERSION } from "./schema";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "./sqlite-engine";

const all = { all: true } as const;

describe("search hits between searches (hit cache)", () => {
  let home: string;
  const engines: SqliteQueryEngine[] = [];
  const counts = { opens: 0, closes: 0 };
  const reads = { buffers: 0, into: 0 };
  const logPath = (id: string) => join(home, "sessions", `${id}.jsonl`);
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const write = (header: SessionHeader, events: readonly SessionEvent[]) =>
    fs.writeFileSync(logPath(header.sessionId), [header, ...events].map(line).join(""));
  /** Appends a turn to a log as another program would, and says so in the change journal. */
  const appendTurn = (log: EventLogBuilder, store: SessionStore, text: string) => {
    const before = log.events.length;
    log.turn().user(text).end();
    fs.appendFileSync(logPath(log.header.sessionId), log.events.slice(before).map(line).join(""));
    store.announceChange(log.header.sessionId);
  };
  /** An engine over a store that counts the log files it opens and closes. */
  const open = () => {
    const store = createSessionStore({ home });
    const openLogReader = store.openLogReader.bind(store);
    store.openLogReader = (sessionId: string): LogReader | null => {
      const reader = openLogReader(sessionId);
      if (reader === null) return null;
      counts.opens += 1;
      return {
        readAt: (offset, length) => {
          reads.buffers += 1;
          return reader.readAt(offset, length);
        },
        readInto: (target, targetOffset, offset, length) => {
          reads.into += 1;
          return reader.readInto(target, targetOffset, offset, length);
        },
        withPayload: (event) => reader.withPayload(event),
        close() {
          counts.closes += 1;
          reader.close();
        },
      };
    };
    const engine = createSqliteQueryEngine({ path: join(home, "index.sqlite"), store });
    engines.push(engine);
    return { engine, store };
  };

  beforeEach(() => {
    home = fs.mkdtempSync(join(tmpdir(), "tapedeck-hit-cache-"));
    fs.mkdirSync(join(home, "sessions"));
    counts.opens = 0;
    counts.closes = 0;
    reads.buffers = 0;
    reads.into = 0;
  });
  afterEach(() => {
    for (const engine of engines.splice(0)) engine.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("reads a repeated search's hits from the logs it keeps open, and reopens them after a sync that changed the index", async () => {
    const a = eventLogBuilder().turn().user("deploy the mutex fix").end();
    const b = eventLogBuilder().turn().user("the mutex again").assistant("mutex held").end();
    write(a.header, a.events);
    write(b.header, b.events);
    const { engine, store } = open();
    await engine.sync();

    const first = await engine.searchEvents(all, { text: "mutex" });
    expect(first.items).toHaveLength(3);
    expect(counts.opens).toBe(2);
    // Every hit gets its own summary: changing one changes nothing the engine gives next.
    first.items[0]!.session.eventCount = -1;
    first.items[0]!.session.usage.inputTokens = -1;
    const second = await engine.searchEvents(all, { text: "mutex" });
    expect(second.items.map((hit) => hit.event.seq)).toEqual(
      first.items.map((hit) => hit.event.seq),
    );
    expect(second.items.every((hit) => hit.session.eventCount > 0)).toBe(true);
    expect(second.items.every((hit) => hit.session.usage.inputTokens >= 0)).toBe(true);
    expect(counts).toEqual({ opens: 2, closes: 0 });
    // Each search reads its lines into the engine's one buffer: a read per log here (its hits
    // are a few bytes apart), no buffer made per read.
    expect(reads).toEqual({ buffers: 0, into: 4 });
    // Reading a session syncs it; a log that did not change writes nothing and keeps the cache.
    await engine.readSession(all, b.header.sessionId);
    await engine.searchEvents(all, { text: "mutex" });
    expect(counts).toEqual({ opens: 2, closes: 0 });

    appendTurn(b, store, "mutex three");
    await engine.sync();
    const third = await engine.searchEvents(all, { text: "mutex" });
    expect(third.items).toHaveLength(4);
    expect(third.items[0]!.session.eventCount).toBe(b.events.length);
    // The sync changed the index: the files kept were closed and the page's logs opened again.
    expect(counts).toEqual({ opens: 4, closes: 2 });
    engine.close();
    expect(counts.closes).toBe(counts.opens);
  });

  it("notices an index changed by another connection (another process's sync)", async () => {
    const log = eventLogBuilder().turn().user("rollback plan").end();
    write(log.header, log.events);
    const { engine: reader } = open();
    const { engine: writer, store } = open();
    await writer.sync();
    const hits = await reader.searchEvents(all, { text: "rollback" });
    expect(hits.items[0]!.session.eventCount).toBe(3);

    appendTurn(log, store, "rollback done");
    await writer.sync();
    const after = await reader.searchEvents(all, { text: "rollback" });
    expect(after.items.map((hit) => hit.session.eventCount)).toEqual([6, 6]);
  });

  it("notices damage a read recorded: the next search's summaries say damaged", async () => {
    const log = eventLogBuilder().turn().user("first heron").call("ls", {}, "c1").output("heron");
    write(log.header, log.events);
    const { engine } = open();
    await engine.sync();
    // Changed in place under the index, with nothing to tell a sync (no journal record, same
    // size): an output for a call that was never made, which only a replay refuses.
    const path = logPath(log.header.sessionId);
    const text = fs.readFileSync(path, "utf8");
    const at = text.lastIndexOf('"callId":"c1"');
    fs.writeFileSync(path, `${text.slice(0, at)}"callId":"c9"${text.slice(at + 13)}`);
    const first = await engine.searchEvents(all, { text: "heron" });
    expect(first.items.map((hit) => hit.session.status)).toEqual(["active", "active"]);
    await expect(engine.readSession(all, log.header.sessionId)).rejects.toMatchObject({
      code: "ORPHAN_OUTPUT",
    });
    const after = await engine.searchEvents(all, { text: "heron" });
    expect(after.items.map((hit) => [hit.event.seq, hit.session.status])).toEqual([[2, "damaged"]]);
  });

  it("rebuilds an index of schema version 2 or 3 (full-text rowids in the old order)", async () => {
    const log = eventLogBuilder().turn().user("kept heron").assistant("a heron again").end();
    write(log.header, log.events);
    for (const version of ["2", "3"]) {
      const first = open();
      await first.engine.sync();
      first.engine.close();
      const db = new Database(join(home, "index.sqlite"));
      db.prepare("UPDATE meta SET value = ? WHERE key = 'schema'").run(version);
      db.close();
      const { engine } = open();
      // Emptied when opened, filled again by the next sync.
      expect((await engine.listSessions(all)).items).toEqual([]);
      await engine.sync();
      const hits = await engine.searchEvents(all, { text: "heron" });
      expect(hits.items.map((hit) => hit.event.seq)).toEqual([3, 2]);
      const check = new Database(join(home, "index.sqlite"), { readonly: true });
      try {
        expect(check.prepare("SELECT value FROM meta WHERE key = 'schema'").get()).toEqual({
          value: String(SCHEMA_VERSION),
        });
        // The full-text rowids are the negated event ids.
        const ids = check.prepare("SELECT id FROM events ORDER BY id").pluck().all() as number[];
        const rowids = check
          .prepare("SELECT rowid FROM event_fts WHERE event_fts MATCH 'heron' ORDER BY rowid")
          .pluck()
          .all();
        expect(rowids).toEqual(
          ids
            .slice(1, 3)
            .map((id) => -id)
            .reverse(),
        );
      } finally {
        check.close();
      }
    }
  });

  it("keeps at most MAX_OPEN_LOGS files open, closing the least recently used", () => {
    const closed: string[] = [];
    const cache = new HitCache({
      openLogReader: (sessionId) => ({
        readAt: () => null,
        readInto: () => false,
        withPayload: (event) => event,
        close: () => closed.push(sessionId),
      }),
    });
    cache.refresh(0);
    for (let index = 0; index < MAX_OPEN_LOGS; index += 1) cache.reader(`s${index}`);
    cache.reader("s0"); // used again: now the most recent
    cache.reader("extra");
    expect(closed).toEqual(["s1"]);
    expect(cache.stats.logOpens).toBe(MAX_OPEN_LOGS + 1);
    cache.clear();
    expect(closed).toHaveLength(MAX_OPEN_LOGS + 1);
  });
});
