/**
 * Two machines, one team index: two homes push at once (one session copied into both), then the
 * second machine lists, searches, reads, traces, exports and draws the lineage of the first
 * machine's sessions without their files.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { uuidv7 } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterAll, describe, expect, inject, it } from "vitest";
import { exportSession } from "../export";
import { createPostgresQueryEngine } from "./postgres-engine";
import { indexContents, makeHome } from "./push-test-helpers";

describe("two machines pushing into one team index", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("stores each event once and serves one machine's sessions to the other", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptop = await makeHome({
      sessions: 12,
      turns: 6,
      workspaceId: "/work/laptop",
      word: "heron",
    });
    const runner = await makeHome({
      sessions: 12,
      turns: 6,
      workspaceId: "/work/runner",
      word: "ibis",
    });
    cleanups.push(() => fs.rmSync(laptop.home, { recursive: true, force: true }));
    cleanups.push(() => fs.rmSync(runner.home, { recursive: true, force: true }));
    // A session and its fork on the laptop; the parent was also copied to the runner.
    const parent = eventLogBuilder({
      sessionId: uuidv7(),
      workspaceId: "/work/laptop",
      start: new Date("2026-06-01T10:00:00.000Z"),
    });
    parent.turn().user("migrate the 数据库 schema").call("shell", { command: "psql" });
    parent.output("ALTER TABLE ok").assistant("done").end();
    const fork = eventLogBuilder({
      sessionId: uuidv7(),
      workspaceId: "/work/laptop",
      start: new Date("2026-06-01T11:00:00.000Z"),
      parent: { sessionId: parent.header.sessionId, seq: 6 },
    });
    fork.turn().user("try it without downtime").assistant("use a shadow table").end();
    for (const dir of [laptop.home, runner.home]) {
      fs.writeFileSync(join(dir, "sessions", `${parent.header.sessionId}.jsonl`), parent.jsonl());
    }
    fs.writeFileSync(join(laptop.home, "sessions", `${fork.header.sessionId}.jsonl`), fork.jsonl());

    const onLaptop = await createPostgresQueryEngine({ url: database.url });
    const onRunner = await createPostgresQueryEngine({ url: database.url });
    cleanups.push(() => onLaptop.close());
    cleanups.push(() => onRunner.close());
    await Promise.all([
      onLaptop.push(createSessionStore({ home: laptop.home }), { host: "laptop", batchSize: 10 }),
      onRunner.push(createSessionStore({ home: runner.home }), { host: "runner", batchSize: 10 }),
    ]);
    const expected = laptop.events + runner.events + parent.events.length + fork.events.length;
    expect(await indexContents(database.url)).toEqual({
      sessions: 26,
      events: expected,
      consistent: true,
    });
    const stats = await onRunner.stats();
    expect(stats.map((row) => row.host).sort()).toEqual(["laptop", "runner"]);
    expect(stats.reduce((sum, row) => sum + row.sessions, 0)).toBe(26);
    expect(stats.reduce((sum, row) => sum + row.events, 0)).toBe(expected);

    // The runner's view of the laptop's work, with no laptop file on the runner.
    const all = { all: true } as const;
    const laptopScope = { workspaceIds: ["/work/laptop"] };
    const hits = await onRunner.searchEvents(laptopScope, { text: "数据 schema" });
    expect(hits.items.map((hit) => hit.sessionId)).toEqual([parent.header.sessionId]);
    expect(hits.items[0]!.snippet).toContain("«数据»");
    const heron = await onRunner.searchEvents(all, { text: "heron", limit: 200 });
    expect(new Set(heron.items.map((hit) => hit.session.workspaceId))).toEqual(
      new Set(["/work/laptop"]),
    );
    const session = await onRunner.readSession(laptopScope, fork.header.sessionId);
    expect(session.events.length).toBe(6 + fork.events.length);
    const trace = await onRunner.traceEvent(laptopScope, parent.header.sessionId, 3);
    expect(trace.event.type).toBe("function_call");
    const lineage = await onRunner.traceLineage(all, fork.header.sessionId);
    expect(lineage.ancestors.map((a) => a.session.id)).toEqual([parent.header.sessionId]);
    const exported = await exportSession(onRunner, all, fork.header.sessionId);
    expect(exported.trim().split("\n")).toHaveLength(1 + 6 + fork.events.length);
    const listed = await onRunner.listSessions({ workspaceIds: ["/work/runner"] }, { limit: 200 });
    expect(listed.items).toHaveLength(12);
  }, 60_000);
});
