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
  let harness: QueryEngineHarness;
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    harness = context.harness;
    engine = context.engine;
  });

  describe("damaged logs", () => {
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
