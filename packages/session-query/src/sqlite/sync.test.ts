import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventLogCorruptError, type SessionEvent, type SessionHeader } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "./schema";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "./sqlite-engine";
import type { SyncProgress } from "./sync-types";

const all = { all: true } as const;

describe("SQLite index maintenance", () => {
  let home: string;
  let dbPath: string;
  let engine: SqliteQueryEngine;
  const store = () => createSessionStore({ home });
  const logPath = (id: string) => join(home, "sessions", `${id}.jsonl`);
  const write = (header: SessionHeader, events: readonly SessionEvent[]) =>
    fs.writeFileSync(
      logPath(header.sessionId),
      [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join(""),
    );
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  /** Appends to a log as another program would, and says so in the change journal. */
  const appendByHand = (id: string, text: string) => {
    fs.appendFileSync(logPath(id), text);
    store().announceChange(id);
  };

  beforeEach(() => {
    home = fs.mkdtempSync(join(tmpdir(), "tapedeck-sync-"));
    fs.mkdirSync(join(home, "sessions"));
    dbPath = join(home, "index.sqlite");
    engine = createSqliteQueryEngine({ path: dbPath, store: store() });
  });
  afterEach(() => {
    engine.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("ingests only the events appended since the last sync", async () => {
    const log = eventLogBuilder().turn().user("first words").end();
    write(log.header, log.events);
    expect(await engine.sync()).toMatchObject({ sessionsAdded: 1, eventsIndexed: 3 });
    expect(await engine.sync()).toMatchObject({
      sessionsAdded: 0,
      sessionsUpdated: 0,
      eventsIndexed: 0,
    });
    const before = log.events.length;
    log.turn().user("second words").end();
    appendByHand(log.header.sessionId, log.events.slice(before).map(line).join(""));
    expect(await engine.sync()).toMatchObject({ sessionsUpdated: 1, eventsIndexed: 3 });
    const hits = await engine.searchEvents(all, { text: "words", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2, 5]);
    expect((await engine.listSessions(all)).items[0]?.eventCount).toBe(6);
  });

  it("a cold (compressed) log resumed: only the events its segment added are ingested", async () => {
    const log = eventLogBuilder().turn().user("first words").end();
    write(log.header, log.events);
    expect((await store().compact(log.header.sessionId)).action).toBe("compressed");
    expect(await engine.sync()).toMatchObject({ sessionsAdded: 1, eventsIndexed: 3 });
    const before = log.events.length;
    log.turn().user("second words").end();
    // A writer leaves the .zst as it is and appends to a segment beside it: the log's size grows
    // with the .zst's inode kept, so the index reads on from where it stopped.
    await store().append(log.header.sessionId, log.events.slice(before));
    expect(await engine.sync()).toMatchObject({
      sessionsAdded: 0,
      sessionsUpdated: 1,
      eventsIndexed: 3,
    });
    const hits = await engine.searchEvents(all, { text: "words", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2, 5]);
    expect((await engine.listSessions(all)).items[0]?.eventCount).toBe(6);
  });

  it("sees a log changed without a journal record at a full sync (the journal is a hint)", async () => {
    const log = eventLogBuilder().turn().user("first words").end();
    write(log.header, log.events);
    // The folder's last change well before the sync: its stamp is not racy (a racy one makes the
    // next sync list the folder anyway).
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(join(home, "sessions"), past, past);
    await engine.sync();
    const before = log.events.length;
    log.turn().user("second words").end();
    // Another program appends in place and says nothing: the folder itself does not change.
    fs.appendFileSync(logPath(log.header.sessionId), log.events.slice(before).map(line).join(""));
    expect(await engine.sync()).toMatchObject({ sessionsUpdated: 0, eventsIndexed: 0 });
    expect(await engine.sync({ full: true })).toMatchObject({
      sessionsUpdated: 1,
      eventsIndexed: 3,
    });
    const hits = await engine.searchEvents(all, { text: "words", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2, 5]);
    expect(await engine.sync({ full: true })).toMatchObject({
      sessionsUpdated: 0,
      eventsIndexed: 0,
    });
  });

  it("writes nothing when the journal says nothing changed (a fresh index answers at once)", async () => {
    const log = eventLogBuilder().turn().user("first words").end();
    write(log.header, log.events);
    store().announceChange(log.header.sessionId);
    // A home at rest: a folder changed within a timestamp tick of a sync is listed again by the
    // next one (the store cannot tell a change in the same tick from none).
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(join(home, "sessions"), past, past);
    expect(await engine.sync()).toMatchObject({ sessionsAdded: 1 });
    // `data_version` changes for this connection whenever another one commits a write.
    const observer = new Database(dbPath, { readonly: true });
    try {
      const version = () => observer.pragma("data_version", { simple: true });
      const before = version();
      expect(await engine.sync()).toMatchObject({ sessionsUpdated: 0, eventsIndexed: 0 });
      await engine.searchEvents(all, { text: "words" });
      expect(version()).toBe(before);
      // The check can fail: a change is written.
      appendByHand(log.header.sessionId, line({ ...log.events[1], seq: 4 }));
      expect(await engine.sync()).toMatchObject({ eventsIndexed: 1 });
      expect(version()).not.toBe(before);
    } finally {
      observer.close();
    }
  });

  it("skips a FIFO or directory named like a log (no hang), also one replacing an indexed log", async () => {
    const kept = eventLogBuilder().turn().user("kept words").end();
    write(kept.header, kept.events);
    const replaced = eventLogBuilder().turn().user("replaced words").end();
    write(replaced.header, replaced.events);
    await engine.sync();
    fs.rmSync(logPath(replaced.header.sessionId));
    execFileSync("mkfifo", [logPath(replaced.header.sessionId)]);
    fs.mkdirSync(logPath(eventLogBuilder().header.sessionId));
    await engine.sync();
    const hits = await engine.searchEvents(all, { text: "words" });
    expect(hits.items.map((hit) => hit.sessionId)).toEqual([kept.header.sessionId]);
  });

  it("forgets a log deleted by hand (no journal record: the folder's stamp moved) at the next sync", async () => {
    const kept = eventLogBuilder().turn().user("kept words").end();
    const deleted = eventLogBuilder().turn().user("deleted words").end();
    write(kept.header, kept.events);
    write(deleted.header, deleted.events);
    await engine.sync();
    fs.rmSync(logPath(deleted.header.sessionId));
    expect(await engine.sync()).toMatchObject({ sessionsRemoved: 1 });
    const hits = await engine.searchEvents(all, { text: "words" });
    expect(hits.items.map((hit) => hit.sessionId)).toEqual([kept.header.sessionId]);
    expect((await engine.listSessions(all)).items.map((item) => item.id)).toEqual([
      kept.header.sessionId,
    ]);
    await expect(engine.readSession(all, deleted.header.sessionId)).rejects.toMatchObject({
      code: "SESSION_NOT_FOUND",
    });
  });

  it("re-ingests a file that shrank or was replaced", async () => {
    const log = eventLogBuilder().turn().user("original text").end();
    write(log.header, log.events);
    await engine.sync();
    const replacement = eventLogBuilder({ sessionId: log.header.sessionId })
      .turn()
      .user("new")
      .end();
    const path = logPath(log.header.sessionId);
    fs.writeFileSync(`${path}.tmp`, [replacement.header, ...replacement.events].map(line).join(""));
    fs.renameSync(`${path}.tmp`, path);
    store().announceChange(log.header.sessionId);
    await engine.sync();
    expect((await engine.searchEvents(all, { text: "original" })).items).toEqual([]);
    expect((await engine.searchEvents(all, { text: "new" })).items).toHaveLength(1);
    // Same inode, fewer bytes.
    fs.truncateSync(
      path,
      Buffer.byteLength([replacement.header, ...replacement.events.slice(0, 1)].map(line).join("")),
    );
    store().announceChange(log.header.sessionId);
    await engine.sync();
    expect((await engine.listSessions(all)).items[0]?.eventCount).toBe(1);
    expect((await engine.searchEvents(all, { text: "new" })).items).toEqual([]);
  });

  it("marks a torn tail damaged and recovers once the line is complete", async () => {
    const log = eventLogBuilder().turn().user("torn walrus");
    write(log.header, log.events);
    const next = line(log.assistant("finished walrus").events.at(-1));
    appendByHand(log.header.sessionId, next.slice(0, 10));
    await engine.sync();
    let [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("damaged");
    expect(summary?.damage?.code).toBe("TORN_TAIL");
    expect((await engine.searchEvents(all, { text: "walrus" })).items).toHaveLength(1);
    appendByHand(log.header.sessionId, next.slice(10));
    await engine.sync();
    [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("active");
    expect((await engine.searchEvents(all, { text: "walrus" })).items).toHaveLength(2);
  });

  it("keeps searching other sessions when a log has a line that is not JSON", async () => {
    const good = eventLogBuilder().turn().user("healthy narwhal").end();
    const bad = eventLogBuilder().turn().user("broken narwhal");
    write(good.header, good.events);
    write(bad.header, bad.events);
    appendByHand(bad.header.sessionId, "{not json\n");
    await engine.sync();
    const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
    expect(byId.get(bad.header.sessionId)?.damage?.code).toBe("BAD_JSON");
    expect(byId.get(good.header.sessionId)?.status).toBe("completed");
    const hits = await engine.searchEvents(all, { text: "narwhal healthy" });
    expect(hits.items.map((hit) => hit.sessionId)).toEqual([good.header.sessionId]);
    const error = await engine.readSession(all, bad.header.sessionId).catch((e: unknown) => e);
    expect(EventLogCorruptError.isInstance(error)).toBe(true);
  });

  it("leaves out a file whose header cannot be read", async () => {
    fs.writeFileSync(logPath("0193b6e2-7c1a-7d3e-9f00-1a2b3c4d5e6f"), "garbage\n");
    await engine.sync();
    expect((await engine.listSessions(all)).items).toEqual([]);
  });

  it("never misses an event a writer appends while it stays open across syncs (journal, lock, close)", async () => {
    const writing = store();
    const { sessionId } = await writing.create({ cwd: home });
    await engine.sync();
    const writer = await writing.openWriter(sessionId);
    // A sync between the writer's open record and its first append: nothing to index yet.
    expect(await engine.sync()).toMatchObject({ eventsIndexed: 0 });
    const runId = "run-open";
    const message = (content: string) =>
      ({ type: "message", runId, role: "user", content }) as const;
    await writer.append([
      { type: "turn/start", runId, policy: { approval: "auto" }, model: "m", resumed: false },
      message("first of the turn"),
    ]);
    // The journal named the session before this sync's cursor; its lock file names it again.
    expect(await engine.sync()).toMatchObject({ eventsIndexed: 2 });
    await writer.append([message("second of the turn")]);
    await writer.append([{ type: "turn/end", runId, status: "completed" }]);
    await writer.close();
    expect(await engine.sync()).toMatchObject({ eventsIndexed: 2 });
    const hits = await engine.searchEvents(all, { text: "turn", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2, 3]);
    expect((await engine.listSessions(all)).items[0]).toMatchObject({ status: "completed" });
  });

  it("readSession sees events appended after the last sync", async () => {
    const log = eventLogBuilder().turn().user("one");
    write(log.header, log.events);
    await engine.sync();
    log.end();
    appendByHand(log.header.sessionId, line(log.events.at(-1)));
    const session = await engine.readSession(all, log.header.sessionId);
    expect(session.lastSeq).toBe(3);
    expect((await engine.listSessions(all)).items[0]?.status).toBe("completed");
  });

  it("merges the full-text index into one segment once enough events were indexed", async () => {
    const segments = () => {
      const db = new Database(dbPath, { readonly: true });
      try {
        const row = db.prepare("SELECT count(DISTINCT segid) AS n FROM event_fts_idx").get();
        return (row as { n: number }).n;
      } finally {
        db.close();
      }
    };
    engine.close();
    engine = createSqliteQueryEngine({ path: dbPath, store: store(), optimizeAfterEvents: 8 });
    const add = async (word: string) => {
      const log = eventLogBuilder().turn().user(`${word} words`).end();
      write(log.header, log.events);
      await engine.sync();
    };
    // Filling the empty index ends with a merge; after that, each sync that indexes something
    // commits a new FTS segment (3 events each).
    await add("alpha");
    expect(segments()).toBe(1);
    await add("bravo");
    await add("charlie");
    expect(segments()).toBe(3);
    await add("delta"); // 9 events since the last merge: merged
    expect(segments()).toBe(1);
    await add("echo");
    expect(segments()).toBe(2);
    await engine.rebuild();
    expect(segments()).toBe(1);
    expect((await engine.searchEvents(all, { text: "words" })).items).toHaveLength(5);
  });

  it("after a sync that adds a small share of the index, merges a bounded amount, never the whole index", async () => {
    const segments = () => {
      const db = new Database(dbPath, { readonly: true });
      try {
        const row = db.prepare("SELECT count(DISTINCT segid) AS n FROM event_fts_idx").get();
        return (row as { n: number }).n;
      } finally {
        db.close();
      }
    };
    engine.close();
    engine = createSqliteQueryEngine({ path: dbPath, store: store(), optimizeAfterEvents: 8 });
    const addSessions = async (count: number, word: string) => {
      for (let index = 0; index < count; index += 1) {
        const log = eventLogBuilder().turn().user(`${word} ${index}`).end();
        write(log.header, log.events);
      }
      await engine.sync();
    };
    await addSessions(10, "base"); // 30 events, all new: one full merge
    expect(segments()).toBe(1);
    // 9 new events (over the threshold of 8) against 39: a full optimize would rewrite the 30
    // old events into one segment again, which made adding cost grow with the index.
    await addSessions(3, "more");
    expect(segments()).toBe(2);
    expect((await engine.searchEvents(all, { text: "more" })).items).toHaveLength(3);
  });

  it("indexes a log only up to its first damage, reports it, and lists the session damaged", async () => {
    const log = eventLogBuilder().turn();
    for (let index = 0; index < 12; index += 1) log.user(`heron number ${index}`);
    log.end();
    // Drop the line of seq 7: a gap, which replay refuses from there on.
    const lines = [log.header, ...log.events.filter((event) => event.seq !== 7)].map(line);
    fs.writeFileSync(logPath(log.header.sessionId), lines.join(""));
    const report = await engine.sync();
    expect(report.damaged).toEqual([
      expect.objectContaining({ sessionId: log.header.sessionId, code: "SEQ_GAP" }),
    ]);
    const hits = await engine.searchEvents(all, { text: "heron", order: "oldest", limit: 50 });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2, 3, 4, 5, 6]);
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("damaged");
    // Reported once, not by every later sync.
    appendByHand(log.header.sessionId, line({ ...log.events.at(-1), seq: 99 }));
    expect((await engine.sync()).damaged).toEqual([]);
    expect((await engine.searchEvents(all, { text: "heron", limit: 50 })).items).toHaveLength(5);
  });

  it("drops from the index what a full replay refuses in appended bytes", async () => {
    const log = eventLogBuilder().turn().user("first heron");
    write(log.header, log.events);
    await engine.sync();
    const before = log.events.length;
    // An output for a call that was never made: seq-continuous, so only replay refuses it.
    log.push({
      type: "function_call_output",
      runId: log.events[1]!.runId,
      callId: "nope",
      output: "heron",
      isError: false,
    });
    log.user("later heron").end();
    appendByHand(log.header.sessionId, log.events.slice(before).map(line).join(""));
    await engine.sync();
    await expect(engine.readSession(all, log.header.sessionId)).rejects.toMatchObject({
      code: "ORPHAN_OUTPUT",
    });
    const hits = await engine.searchEvents(all, { text: "heron", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
    expect((await engine.listSessions(all)).items[0]?.status).toBe("damaged");
  });

  it("sees a same-length edit in place (a seq gap) at the next sync that looks at the log", async () => {
    const log = eventLogBuilder().turn().user("first egret").assistant("second egret").end();
    write(log.header, log.events);
    await engine.sync();
    expect((await engine.listSessions(all)).items[0]?.status).toBe("completed");
    const path = logPath(log.header.sessionId);
    const text = fs.readFileSync(path, "utf8");
    const edited = text.replace('"seq":3,', '"seq":7,');
    expect(edited.length).toBe(text.length);
    fs.writeFileSync(path, edited);
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path, later, later);
    store().announceChange(log.header.sessionId);
    await engine.sync();
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("damaged");
    expect(summary?.damage?.code).toBe("SEQ_GAP");
    const hits = await engine.searchEvents(all, { text: "egret", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
  });

  it("checks appended bytes against every invariant without re-reading the log", async () => {
    const log = eventLogBuilder().turn().user("first ibis").call("ls", {}, "c1").output("x").end();
    write(log.header, log.events);
    await engine.sync();
    const before = log.events.length;
    log.turn().call("ls", {}, "c1").output("y").end().turn().user("late ibis").end();
    appendByHand(log.header.sessionId, log.events.slice(before).map(line).join(""));
    const report = await engine.sync();
    expect(report.damaged).toEqual([
      expect.objectContaining({ sessionId: log.header.sessionId, code: "DUPLICATE_CALL_ID" }),
    ]);
    expect(report.eventsIndexed).toBe(1);
    const hits = await engine.searchEvents(all, { text: "ibis", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
  });

  it("leaves no write-ahead log after filling an empty index or a rebuild: the index is one file", async () => {
    for (let index = 0; index < 20; index += 1) {
      const log = eventLogBuilder().turn().user(`footprint ${index}`).assistant("noted").end();
      write(log.header, log.events);
    }
    expect(await engine.sync()).toMatchObject({ sessionsAdded: 20 });
    expect(engine.footprint()).toMatchObject({ walBytes: 0 });
    expect(engine.footprint().databaseBytes).toBeGreaterThan(0);
    // A later small sync may leave frames in the log (SQLite checkpoints it by itself).
    const more = eventLogBuilder().turn().user("footprint later").end();
    write(more.header, more.events);
    store().announceChange(more.header.sessionId);
    await engine.sync();
    expect(engine.footprint().walBytes).toBeGreaterThan(0);
    await engine.rebuild();
    expect(engine.footprint()).toMatchObject({ walBytes: 0 });
  });

  it("persists across reopening, and rebuilds with progress", async () => {
    for (let index = 0; index < 3; index += 1) {
      const log = eventLogBuilder().turn().user(`persisted ${index}`).end();
      write(log.header, log.events);
    }
    await engine.sync();
    engine.close();
    engine = createSqliteQueryEngine({ path: dbPath, store: store() });
    expect(await engine.sync()).toMatchObject({ eventsIndexed: 0, sessionsAdded: 0 });
    expect((await engine.searchEvents(all, { text: "persisted" })).items).toHaveLength(3);
    const progress: SyncProgress[] = [];
    const report = await engine.rebuild({ onProgress: (step) => progress.push(step) });
    expect(report).toMatchObject({ sessionsAdded: 3, eventsIndexed: 9 });
    expect(progress.at(-1)).toEqual({ sessionsDone: 3, sessionsTotal: 3, eventsIndexed: 9 });
    expect((await engine.searchEvents(all, { text: "persisted" })).items).toHaveLength(3);
  });

  it("rebuilds an index written by another schema version", async () => {
    const log = eventLogBuilder().turn().user("versioned").end();
    write(log.header, log.events);
    await engine.sync();
    engine.close();
    const db = new Database(dbPath);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema'").run(String(SCHEMA_VERSION + 1));
    db.close();
    engine = createSqliteQueryEngine({ path: dbPath, store: store() });
    expect((await engine.listSessions(all)).items).toEqual([]);
    await engine.sync();
    expect((await engine.searchEvents(all, { text: "versioned" })).items).toHaveLength(1);
  });

  it("shares one index file between two engines, even across a rebuild", async () => {
    const log = eventLogBuilder().turn().user("shared heron");
    log.call("shell", { command: "ls" }).output("heron.txt");
    write(log.header, log.events);
    await engine.sync();
    const other = createSqliteQueryEngine({ path: dbPath, store: store() });
    try {
      await other.rebuild();
      const before = log.events.length;
      log.call("read_file", { path: "heron.txt" }).output("a heron").end();
      appendByHand(log.header.sessionId, log.events.slice(before).map(line).join(""));
      await engine.sync();
      for (const reader of [engine, other]) {
        const hits = await reader.searchEvents(all, { text: "heron", toolName: "read_file" });
        expect(hits.items.map((hit) => hit.event.seq)).toEqual([6, 5]);
      }
    } finally {
      other.close();
    }
  });

  it("gives events that share a millisecond distinct ids, in order", async () => {
    const start = new Date("2026-02-01T00:00:00.000Z");
    const logs = [0, 1, 2].map(() => eventLogBuilder({ start }).turn().user("same instant").end());
    for (const log of logs) write(log.header, log.events);
    await engine.sync();
    const hits = await engine.searchEvents(all, { text: "instant" });
    expect(hits.items).toHaveLength(3);
    const ids = new Set(hits.items.map((hit) => hit.sessionId));
    expect(ids.size).toBe(3);
  });

  it("never lets SQLite see raw query syntax", async () => {
    const log = eventLogBuilder().turn().user("plain text").end();
    write(log.header, log.events);
    await engine.sync();
    for (const text of [
      '"',
      "(",
      ")",
      "*",
      "NEAR(a b",
      "a:b",
      "body:plain",
      "tags:s1",
      "^x",
      "- x",
      "OR AND NOT",
      // FTS5 reads its query up to a NUL ("unterminated string", an SqliteError).
      "\u0000",
      'plain\u0000"',
    ]) {
      await expect(engine.searchEvents(all, { text })).resolves.toBeDefined();
      await expect(engine.searchSessions(all, { text })).resolves.toBeDefined();
    }
    expect((await engine.searchEvents(all, { text: "tags:s1" })).items).toEqual([]);
    // A NUL separates tokens as any punctuation does.
    expect((await engine.searchEvents(all, { text: "plain\u0000text" })).items).toHaveLength(1);
  });
});
