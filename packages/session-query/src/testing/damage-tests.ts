/** Conformance suite: damaged logs and copies. */
import { EventLogCorruptError } from "@tapedeck/session";
import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { exportSession } from "../export";
import type { SessionQueryEngine } from "../query-engine";
import type { QueryEngineHarness } from "./harness";
import { all, build, conversation, expectError, type SuiteContext } from "./suite-helpers";

/** Registers the damaged logs and copies tests. */
export function damageTests(context: SuiteContext): void {
  damagedLogsTests(context);
  copiesTests(context);
}

/** `damaged logs`: a broken log found when indexed, read or appended to. */
function damagedReadTests(context: SuiteContext): void {
  let harness: QueryEngineHarness;
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    harness = context.harness;
    engine = context.engine;
  });

  it("refuses to read or export a log with a seq gap, but keeps searching the others", async () => {
    const good = conversation("healthy walrus", "ok");
    const bad = conversation("broken walrus", "ok");
    const events = bad.events.filter((event) => event.seq !== 3);
    await harness.write(bad.header, events);
    await put(good);
    const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
    expect(byId.get(bad.header.sessionId)?.status).toBe("damaged");
    expect(byId.get(bad.header.sessionId)?.damage?.code).toBe("SEQ_GAP");
    expect(byId.get(good.header.sessionId)?.status).toBe("completed");
    const error = await expectError(engine.readSession(all, bad.header.sessionId));
    expect(EventLogCorruptError.isInstance(error)).toBe(true);
    expect((error as EventLogCorruptError).code).toBe("SEQ_GAP");
    const exported = await expectError(exportSession(engine, all, bad.header.sessionId));
    expect(EventLogCorruptError.isInstance(exported)).toBe(true);
    const hits = await engine.searchEvents(all, { text: "healthy walrus" });
    expect(hits.items.map((h) => h.sessionId)).toEqual([good.header.sessionId]);
    const damaged = await engine.listSessions(all, { status: "damaged" });
    expect(damaged.items.map((s) => s.id)).toEqual([bad.header.sessionId]);
  });

  it("finds a broken invariant in a log indexed from its first event", async () => {
    const log = build().turn().user("orphan walrus");
    log.push({
      type: "function_call_output",
      runId: log.events[0]!.runId,
      callId: "never-called",
      output: "?",
      isError: false,
      sourceEventSeqs: [1],
    });
    log.end();
    await put(log);
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("damaged");
    expect(summary?.damage?.code).toBe("ORPHAN_OUTPUT");
    const error = await expectError(engine.readSession(all, log.header.sessionId));
    expect((error as EventLogCorruptError).code).toBe("ORPHAN_OUTPUT");
    const trace = await expectError(engine.traceEvent(all, log.header.sessionId, 1));
    expect(EventLogCorruptError.isInstance(trace)).toBe(true);
  });

  it("marks a session damaged once a read finds a broken invariant in appended events", async () => {
    const log = build().turn().user("later walrus").end();
    await put(log);
    log.push({ type: "turn/end", runId: log.events[0]!.runId, status: "completed" });
    await put(log);
    const error = await expectError(engine.readSession(all, log.header.sessionId));
    expect((error as EventLogCorruptError).code).toBe("TURN_NESTING");
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("damaged");
    expect(summary?.damage?.code).toBe("TURN_NESTING");
    const hits = await engine.searchEvents(all, { text: "walrus" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
  });

  it("refuses appended events that break an invariant before any read (issue #28)", async () => {
    const log = build().turn().user("first walrus").call("ls", { dir: "." }, "c1").output("x");
    log.end();
    await put(log);
    expect((await engine.listSessions(all)).items[0]?.status).toBe("completed");
    const runId = log.events[0]!.runId;
    // An orphan output outside any turn, then a user message: neither may be served.
    log.push({
      type: "function_call_output",
      runId,
      callId: "c1",
      output: "orphaned walrus output",
      isError: false,
      sourceEventSeqs: [3],
    });
    log.push({ type: "message", runId, role: "user", content: "appended walrus" });
    await put(log);
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary?.status).toBe("damaged");
    expect(summary?.damage?.code).toBe("TURN_NESTING");
    const hits = await engine.searchEvents(all, { text: "walrus" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
    expect((await engine.searchEvents(all, { text: "appended" })).items).toEqual([]);
  });
}

/** `damaged logs`: every append and a fork's own events checked against the invariants. */
function damagedAppendTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("checks appended events against every invariant, across several appends", async () => {
    const cases: [string, (log: EventLogBuilder) => void][] = [
      ["DUPLICATE_CALL_ID", (log) => log.turn().call("ls", {}, "c1")],
      ["DUPLICATE_OUTPUT", (log) => log.turn().output("again", { callId: "c1" })],
      ["ORPHAN_OUTPUT", (log) => log.turn().output("never", { callId: "nobody" })],
      ["BAD_REPLACE", (log) => log.compact("twice", [2])],
      ["TURN_NESTING", (log) => log.turn().call("cat", {}, "c2").end()],
    ];
    for (const [code, damage] of cases) {
      const log = build().turn().user("walrus one").call("ls", {}, "c1").output("x").end();
      await put(log);
      log.compact("summary walrus", [2, 3]).turn().user("walrus two").end();
      await put(log);
      damage(log);
      const damaged = log.events.at(-1)!.seq;
      log.push({ type: "message", runId: log.events[0]!.runId, role: "user", content: "late" });
      await put(log);
      const summary = await engine.traceLineage(all, log.header.sessionId);
      expect([code, summary.session.status, summary.session.damage?.code]).toEqual([
        code,
        "damaged",
        code,
      ]);
      const hits = await engine.searchEvents(all, { sessionId: log.header.sessionId });
      expect(Math.max(...hits.items.map((hit) => hit.event.seq))).toBeLessThan(damaged);
    }
  });

  it("checks a fork's own events against its parent's prefix", async () => {
    const parent = build().turn().user("parent walrus").call("ls", {}, "p1").output("x").end();
    await put(parent);
    const fork = build({ parent: { sessionId: parent.header.sessionId, seq: 5 } });
    fork.turn().call("ls", {}, "p1");
    fork.push({ type: "message", runId: fork.events[0]!.runId, role: "user", content: "fork" });
    await put(fork);
    const lineage = await engine.traceLineage(all, fork.header.sessionId);
    expect(lineage.session.status).toBe("damaged");
    expect(lineage.session.damage?.code).toBe("DUPLICATE_CALL_ID");
    const hits = await engine.searchEvents(all, { sessionId: fork.header.sessionId });
    // The fork's turn/start (seq 6) is sound; its call (seq 7) reuses its parent's callId.
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([6]);
  });
}

/** Registers the `damaged logs` tests. */
function damagedLogsTests(context: SuiteContext): void {
  describe("damaged logs", () => {
    damagedReadTests(context);
    damagedAppendTests(context);
  });
}

/** Registers the `copies` tests. */
function copiesTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  describe("copies", () => {
    it("hands out copies: mutating results changes nothing inside", async () => {
      const log = build().turn().user("immutable yak").call("ls", { dir: "." }).output("x").end();
      await put(log);
      const [summary] = (await engine.listSessions(all)).items;
      summary!.title = "changed";
      summary!.usage.inputTokens = 999;
      const [hit] = (await engine.searchEvents(all, { text: "yak" })).items;
      (hit!.event as { content: string }).content = "changed";
      hit!.session.title = "changed";
      const session = await engine.readSession(all, log.header.sessionId);
      (session.events[1] as { content: string }).content = "changed";
      const trace = await engine.traceEvent(all, log.header.sessionId, 2);
      (trace.event as { content: string }).content = "changed";
      const lineage = await engine.traceLineage(all, log.header.sessionId);
      lineage.session.title = "changed";

      const [again] = (await engine.listSessions(all)).items;
      expect(again!.title).toBe("immutable yak");
      expect(again!.usage.inputTokens).toBe(0);
      const [hitAgain] = (await engine.searchEvents(all, { text: "yak" })).items;
      expect((hitAgain!.event as { content: string }).content).toBe("immutable yak");
      const reread = await engine.readSession(all, log.header.sessionId);
      expect(reread.events).toEqual(log.events);
    });
  });
}
