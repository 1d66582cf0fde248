/** Conformance suite: reading, export, forks and traces. */
import { replayEvents, type SessionEvent, type SessionHeader } from "@tapedeck/session";
import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { EventNotFoundError } from "../errors";
import { exportSession } from "../export";
import type { SessionQueryEngine } from "../query-engine";
import type { QueryEngineHarness } from "./harness";
import {
  all,
  build,
  conversation,
  expectError,
  expectInvalid,
  type SuiteContext,
} from "./suite-helpers";

/** Registers the reading, export, forks and traces tests. */
export function sessionTests(context: SuiteContext): void {
  readSessionTests(context);
  forksTests(context);
  traceEventTests(context);
}

/** Registers the `readSession and export` tests. */
function readSessionTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  describe("readSession and export", () => {
    it("returns the replay-validated session", async () => {
      const log = build().turn().user("hello").call("ls", {}).output("a b").end();
      await put(log);
      const session = await engine.readSession(all, log.header.sessionId);
      expect(session.events).toEqual(log.events);
      expect(session.turnCount).toBe(1);
      expect(session.currentSeqs).toEqual([2, 3, 4]);
    });

    it("exports JSONL that replays to the same session", async () => {
      const log = build().turn().user("export me").end();
      await put(log);
      expect(await exportSession(engine, all, log.header.sessionId)).toBe(log.jsonl());
    });
  });
}

/** Registers the `forks` tests. */
function forksTests(context: SuiteContext): void {
  describe("forks", () => {
    forkReadTests(context);
    forkLinkTests(context);
  });
}

/** `forks`: listing, reading, searching and tracing a fork family. */
function forkReadTests(context: SuiteContext): void {
  let harness: QueryEngineHarness;
  let engine: SessionQueryEngine;
  const family = () => forkFamily(context);
  beforeEach(() => {
    harness = context.harness;
    engine = context.engine;
  });

  it("summarizes forks with parent and forkCount", async () => {
    const { parent, child } = await family();
    const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
    expect(byId.get(parent.header.sessionId)?.forkCount).toBe(2);
    expect(byId.get(child.header.sessionId)?.parent).toEqual({
      sessionId: parent.header.sessionId,
      seq: 5,
    });
    expect(byId.get(child.header.sessionId)?.eventCount).toBe(3);
    expect(byId.get(child.header.sessionId)?.title).toBe("child follow-up about beavers");
  });

  it("stops counting a fork whose log is gone", async () => {
    const { parent, sibling } = await family();
    await harness.remove(sibling.header.sessionId);
    const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
    expect(byId.get(parent.header.sessionId)?.forkCount).toBe(1);
    const lineage = await engine.traceLineage(all, parent.header.sessionId);
    expect(lineage.descendants).toHaveLength(1);
  });

  it("reads a fork with its parent prefix", async () => {
    const { parent, child } = await family();
    const session = await engine.readSession(all, child.header.sessionId);
    expect(session.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(session.events.slice(0, 5)).toEqual(parent.events);
    expect(session.header.parent?.sessionId).toBe(parent.header.sessionId);
  });

  it("searches a parent prefix as part of the parent only", async () => {
    const { parent } = await family();
    const hits = await engine.searchEvents(all, { text: "otters" });
    expect(hits.items.map((h) => h.sessionId)).toEqual([
      parent.header.sessionId,
      parent.header.sessionId,
    ]);
  });

  it("traces lineage up and down", async () => {
    const { parent, child, grandchild, sibling } = await family();
    const lineage = await engine.traceLineage(all, child.header.sessionId);
    expect(lineage.session.id).toBe(child.header.sessionId);
    expect(lineage.ancestors.map((a) => [a.session.id, a.forkSeq])).toEqual([
      [parent.header.sessionId, 5],
    ]);
    expect(lineage.descendants.map((d) => [d.session.id, d.forkSeq, d.children])).toEqual([
      [grandchild.header.sessionId, 8, []],
    ]);
    const root = await engine.traceLineage(all, parent.header.sessionId);
    expect(root.ancestors).toEqual([]);
    expect(root.descendants.map((d) => d.session.id)).toEqual([
      child.header.sessionId,
      sibling.header.sessionId,
    ]);
    expect(root.descendants[0]!.children.map((d) => d.session.id)).toEqual([
      grandchild.header.sessionId,
    ]);
    const leaf = await engine.traceLineage(all, grandchild.header.sessionId);
    expect(leaf.ancestors.map((a) => [a.session.id, a.forkSeq])).toEqual([
      [child.header.sessionId, 8],
      [parent.header.sessionId, 5],
    ]);
  });
}

/** `forks`: a sub-agent's link to its tool call, and a fork's export. */
function forkLinkTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  const family = () => forkFamily(context);
  beforeEach(() => {
    engine = context.engine;
  });

  it("links a sub-agent to the tool call that started it: lineage both ways, the call's trace", async () => {
    const parent = build()
      .turn()
      .user("delegate the search")
      .call("Task", { prompt: "find otters" }, "toolu_task");
    const callSeq = parent.events.length;
    parent.output("found two otters").end();
    const child = build().turn().user("find otters").assistant("two otters");
    Object.assign(child.header, {
      spawnedBy: { sessionId: parent.header.sessionId, seq: callSeq, callId: "toolu_task" },
    });
    const other = conversation("unrelated", "ok");
    await put(parent, child, other);

    const childSummary = (await engine.listSessions(all)).items.find(
      (item) => item.id === child.header.sessionId,
    );
    expect(childSummary?.spawnedBy).toEqual({
      sessionId: parent.header.sessionId,
      seq: callSeq,
      callId: "toolu_task",
    });
    const up = await engine.traceLineage(all, child.header.sessionId);
    expect(up.spawnedBy).toMatchObject({
      session: { id: parent.header.sessionId },
      seq: callSeq,
      callId: "toolu_task",
    });
    expect(up.ancestors).toEqual([]);
    const down = await engine.traceLineage(all, parent.header.sessionId);
    expect(down.subAgents?.map((link) => [link.session.id, link.seq])).toEqual([
      [child.header.sessionId, callSeq],
    ]);
    expect(down.spawnedBy).toBeUndefined();
    const trace = await engine.traceEvent(all, parent.header.sessionId, callSeq);
    expect(trace.subAgents?.map((session) => session.id)).toEqual([child.header.sessionId]);
    const prompt = await engine.traceEvent(all, parent.header.sessionId, callSeq - 1);
    expect(prompt.subAgents).toBeUndefined();
    expect((await engine.traceLineage(all, other.header.sessionId)).subAgents).toBeUndefined();
  });

  it("exports a fork self-contained, parent kept in the header", async () => {
    const { child } = await family();
    const text = await exportSession(engine, all, child.header.sessionId);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const [header, ...events] = lines as [SessionHeader, ...SessionEvent[]];
    expect(header.parent).toEqual(child.header.parent);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const replayed = replayEvents(header, events.slice(5), {
      parentEvents: events.slice(0, 5),
    });
    expect(replayed.lastSeq).toBe(8);
  });
}

/** A parent, its fork, the fork's fork and a sibling fork, written to the running test's index. */
async function forkFamily(context: SuiteContext) {
  const parent = build().system("seed").turn().user("parent question about otters");
  parent.assistant("otters answer").end();
  const child = build({ parent: { sessionId: parent.header.sessionId, seq: 5 } });
  child.turn().user("child follow-up about beavers").end();
  const grandchild = build({ parent: { sessionId: child.header.sessionId, seq: 8 } });
  grandchild.turn().user("grandchild idea").end();
  const sibling = build({ parent: { sessionId: parent.header.sessionId, seq: 1 } });
  sibling.turn().user("sibling path").end();
  await context.put(parent, child, grandchild, sibling);
  return { parent, child, grandchild, sibling };
}

/** Registers the `traceEvent` tests. */
function traceEventTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  describe("traceEvent", () => {
    it("follows replacements to the visible version and lists citers by depth", async () => {
      const log = build().turn().user("look at the logs");
      log.call("read_file", { path: "app.log" }, "call-1").output("error at line 3");
      log.push({
        type: "x-note",
        runId: log.events[0]!.runId,
        text: "derived from the output",
        sourceEventSeqs: [4],
      });
      log.compact("first summary", [2, 3, 4]);
      log.compact("second summary", [6]).end();
      await put(log);
      const trace = await engine.traceEvent(all, log.header.sessionId, 3);
      expect(trace.event).toEqual(log.events[2]);
      expect(trace.visible).toBe(false);
      expect(trace.replacementChain.map((step) => step.seq)).toEqual([3, 6, 7]);
      expect(trace.current?.seq).toBe(7);
      expect(trace.citedBy.map((c) => [c.seq, c.depth, c.via])).toEqual([
        [4, 1, "source"],
        [5, 2, "source"],
      ]);
      const output = await engine.traceEvent(all, log.header.sessionId, 4);
      expect(output.sources.map((s) => s.seq)).toEqual([3]);
      const turnStart = await engine.traceEvent(all, log.header.sessionId, 1);
      expect(turnStart.current).toBeNull();
      expect(turnStart.replacementChain.map((step) => step.seq)).toEqual([1]);
    });

    it("derives citations: a model/request cites its inputItems, an answer cites its request", async () => {
      const log = build().system("be brief").turn().user("what is in app.log?");
      const runId = log.events[1]!.runId;
      const request = (inputItems: number[]) =>
        log.push({
          type: "model/request",
          runId,
          requestId: `req-${inputItems.length}`,
          provider: "openai",
          model: "gpt-4.1-mini",
          inputDigest: "sha256:0",
          toolsDigest: "sha256:0",
          inputItems,
        }).seq;
      const first = request([1, 3]); // 4
      log.call("read_file", { path: "app.log" }, "call-1"); // 5
      log.output("error at line 3"); // 6 (cites 5)
      const second = request([1, 3, 5, 6]); // 7
      log.assistant("It has one error, at line 3."); // 8
      log.end();
      await put(log);
      const id = log.header.sessionId;

      const user = await engine.traceEvent(all, id, 3);
      expect(user.citedBy.map((c) => [c.seq, c.via, c.depth])).toEqual([
        [first, "input", 1],
        [second, "input", 1],
        [5, "answer", 2],
        [8, "answer", 2],
        [6, "source", 3],
      ]);
      const answer = await engine.traceEvent(all, id, 8);
      expect(answer.sources.map((c) => [c.seq, c.via])).toEqual([[second, "answer"]]);
      const call = await engine.traceEvent(all, id, 5);
      expect(call.sources.map((c) => [c.seq, c.via])).toEqual([[first, "answer"]]);
      const secondRequest = await engine.traceEvent(all, id, second);
      expect(secondRequest.sources.map((c) => [c.seq, c.via])).toEqual([
        [1, "input"],
        [3, "input"],
        [5, "input"],
        [6, "input"],
      ]);
      expect(secondRequest.citedBy.map((c) => [c.seq, c.via])).toEqual([[8, "answer"]]);
    });

    it("traces into a fork's parent prefix", async () => {
      const parent = build().turn().user("original").end();
      const child = build({ parent: { sessionId: parent.header.sessionId, seq: 3 } });
      child.turn().compact("shortened", [2]).end();
      await put(parent, child);
      const trace = await engine.traceEvent(all, child.header.sessionId, 2);
      expect(trace.replacementChain.map((step) => step.seq)).toEqual([2, 5]);
      const inParent = await engine.traceEvent(all, parent.header.sessionId, 2);
      expect(inParent.visible).toBe(true);
    });

    it("throws EventNotFoundError for a seq the session does not have", async () => {
      const log = conversation("short", "ok");
      await put(log);
      const error = await expectError(engine.traceEvent(all, log.header.sessionId, 99));
      expect(EventNotFoundError.isInstance(error)).toBe(true);
      await expectInvalid(engine.traceEvent(all, log.header.sessionId, 0), "seq");
    });
  });
}
