/**
 * One session continued on two machines from the same point: both continuations reach the team
 * index, the second pushed as a fork of the first at the seq before they differ.
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { type SessionEvent, uuidv7 } from "@tapedeck/session";
import { type EventLogBuilder, eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterAll, describe, expect, inject, it } from "vitest";
import { divergedSessionId } from "./diverge";
import { createPostgresQueryEngine } from "./postgres-engine";
import { indexContents } from "./push-test-helpers";

const sessionId = uuidv7(Date.parse("2026-06-01T10:00:00.000Z"));
const start = new Date("2026-06-01T10:00:00.000Z");

/** The session as both machines had it, then continued with `next` (a turn of its own). */
function continued(next: string, runId: string): EventLogBuilder {
  const log = eventLogBuilder({ sessionId, workspaceId: "/work/shared", start });
  log
    .turn({ runId: "shared-run" })
    .user("plan the schema migration")
    .assistant("three steps")
    .end();
  log.turn({ runId }).user(next).assistant(`ok: ${next}`).end();
  return log;
}

function homeWith(log: EventLogBuilder): string {
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-diverge-"));
  fs.mkdirSync(join(home, "sessions"));
  fs.writeFileSync(join(home, "sessions", `${sessionId}.jsonl`), log.jsonl());
  return home;
}

const lines = (events: readonly SessionEvent[]) => events.map((event) => JSON.stringify(event));

describe("a session continued differently on two machines", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("stores the second machine's continuation as a fork at the seq before they differ", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptopLog = continued("use a shadow table", "laptop-run");
    const runnerLog = continued("take the downtime", "runner-run");
    const shared = 4; // the first turn: start, user, assistant, end
    expect(lines(laptopLog.events.slice(0, shared))).toEqual(
      lines(runnerLog.events.slice(0, shared)),
    );
    expect(JSON.stringify(laptopLog.events[shared])).not.toBe(
      JSON.stringify(runnerLog.events[shared]),
    );
    const laptop = homeWith(laptopLog);
    const runner = homeWith(runnerLog);
    cleanups.push(() => fs.rmSync(laptop, { recursive: true, force: true }));
    cleanups.push(() => fs.rmSync(runner, { recursive: true, force: true }));
    const engine = await createPostgresQueryEngine({ url: database.url });
    cleanups.push(() => engine.close());
    const runnerStore = createSessionStore({ home: runner });

    const first = await engine.push(createSessionStore({ home: laptop }), { host: "laptop" });
    expect(first.diverged).toEqual([]);
    const second = await engine.push(runnerStore, { host: "runner" });
    const forkId = divergedSessionId(sessionId, `runner:${runner}`, shared + 1);
    expect(second.diverged).toEqual([
      { sessionId, seq: shared + 1, storedAs: forkId, host: "laptop" },
    ]);
    expect(second.eventsPushed).toBe(runnerLog.events.length - shared);

    // Both continuations, each readable as its machine has it; nothing stored twice.
    const all = { all: true } as const;
    expect(lines((await engine.readSession(all, sessionId)).events)).toEqual(
      lines(laptopLog.events),
    );
    const fork = await engine.readSession(all, forkId);
    expect(fork.header.parent).toEqual({ sessionId, seq: shared });
    expect(lines(fork.events)).toEqual(lines(runnerLog.events));
    expect(await indexContents(database.url)).toEqual({
      sessions: 2,
      events: laptopLog.events.length + runnerLog.events.length - shared,
      consistent: true,
    });
    const lineage = await engine.traceLineage(all, forkId);
    expect(lineage.ancestors.map((ancestor) => ancestor.session.id)).toEqual([sessionId]);
    const hits = await engine.searchEvents(all, { text: "downtime" });
    expect(new Set(hits.items.map((hit) => hit.sessionId))).toEqual(new Set([forkId]));

    // The runner goes on: its later events join its fork; a push with nothing new adds nothing.
    // (Written behind the store's back: `full` makes the push look at every log.)
    runnerLog.turn({ runId: "runner-run-2" }).user("and roll back?").assistant("no").end();
    fs.writeFileSync(join(runner, "sessions", `${sessionId}.jsonl`), runnerLog.jsonl());
    const third = await engine.push(runnerStore, { host: "runner", full: true });
    expect(third.diverged).toEqual([]);
    expect(third.eventsPushed).toBe(4);
    expect(lines((await engine.readSession(all, forkId)).events)).toEqual(lines(runnerLog.events));
    expect((await engine.push(runnerStore, { host: "runner", full: true })).eventsPushed).toBe(0);
    expect(lines((await engine.readSession(all, sessionId)).events)).toEqual(
      lines(laptopLog.events),
    );

    // Trashed on the runner: its fork leaves the index, the laptop's session stays.
    fs.rmSync(join(runner, "sessions", `${sessionId}.jsonl`));
    const removed = await engine.push(runnerStore, { host: "runner", full: true });
    expect(removed.sessionsRemoved).toBe(1);
    expect(await engine.sessionIds()).toEqual([sessionId]);
  }, 60_000);

  it("a copy that is only behind the stored session adds nothing and forks nothing", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const ahead = continued("use a shadow table", "laptop-run");
    const behind = eventLogBuilder({ sessionId, workspaceId: "/work/shared", start });
    behind
      .turn({ runId: "shared-run" })
      .user("plan the schema migration")
      .assistant("three steps")
      .end();
    const laptop = homeWith(ahead);
    const runner = homeWith(behind);
    cleanups.push(() => fs.rmSync(laptop, { recursive: true, force: true }));
    cleanups.push(() => fs.rmSync(runner, { recursive: true, force: true }));
    const engine = await createPostgresQueryEngine({ url: database.url });
    cleanups.push(() => engine.close());
    await engine.push(createSessionStore({ home: laptop }), { host: "laptop" });
    const report = await engine.push(createSessionStore({ home: runner }), { host: "runner" });
    expect(report).toMatchObject({ diverged: [], eventsPushed: 0, conflicts: [] });
    expect(await indexContents(database.url)).toEqual({
      sessions: 1,
      events: ahead.events.length,
      consistent: true,
    });
  }, 60_000);

  it("two machines pushing their continuations at once: one is the session, the other its fork", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptop = homeWith(continued("use a shadow table", "laptop-run"));
    const runner = homeWith(continued("take the downtime", "runner-run"));
    cleanups.push(() => fs.rmSync(laptop, { recursive: true, force: true }));
    cleanups.push(() => fs.rmSync(runner, { recursive: true, force: true }));
    const onLaptop = await createPostgresQueryEngine({ url: database.url });
    const onRunner = await createPostgresQueryEngine({ url: database.url });
    cleanups.push(() => onLaptop.close());
    cleanups.push(() => onRunner.close());
    const reports = await Promise.all([
      onLaptop.push(createSessionStore({ home: laptop }), { host: "laptop" }),
      onRunner.push(createSessionStore({ home: runner }), { host: "runner" }),
    ]);
    expect(reports.map((report) => report.diverged.length).sort()).toEqual([0, 1]);
    expect(await indexContents(database.url)).toEqual({
      sessions: 2,
      events: 16 - 4,
      consistent: true,
    });
  }, 60_000);
});
