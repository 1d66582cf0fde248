import { describe, expect, it } from "vitest";
import { analyzeEventLog, replacementChain } from "./analyze";
import {
  EventLogCorruptError,
  SessionBusyError,
  SessionNotFoundError,
  TapedeckError,
} from "./errors";
import { INTERRUPTED_OUTPUT, normalize, repairItems } from "./normalize";
import { parseEventLine } from "./parse-line";
import { replayEvents } from "./replay";
import type { SessionEvent, SessionEventDraft } from "./schema";
import { Session } from "./session";
import { eventLogBuilder } from "./testing";

/** Persists drafts the way a store would: seq and ts assigned in order. */
function persist(events: SessionEvent[], drafts: SessionEventDraft[]): SessionEvent[] {
  let seq = events.at(-1)?.seq ?? 0;
  return [
    ...events,
    ...drafts.map(
      (draft) => ({ ...draft, seq: ++seq, ts: "2026-01-02T00:00:00.000Z" }) as SessionEvent,
    ),
  ];
}

describe("Session.append", () => {
  it("keeps the session unchanged when an event is refused", () => {
    const log = eventLogBuilder().system("s").turn().user("hi");
    const session = replayEvents(log.header, log.events);
    const before = { last: session.lastSeq, surface: session.currentSeqs, turn: session.openTurn };
    expect(() =>
      session.append({
        seq: 5,
        ts: "x",
        type: "message",
        runId: "r",
        role: "user",
        content: "late",
      }),
    ).toThrow(EventLogCorruptError);
    expect({ last: session.lastSeq, surface: session.currentSeqs, turn: session.openTurn }).toEqual(
      before,
    );
  });

  it("tracks the open turn, pending calls, goal and usage", () => {
    const log = eventLogBuilder().turn().user("go").call("read_file", { path: "a" });
    log.push({
      type: "model/response",
      runId: log.events[0]!.runId,
      requestId: "r1",
      finishReason: "tool_calls",
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2 },
    });
    log.push({ type: "goal/set", runId: log.events[0]!.runId, goal: "ship it" });
    const session = replayEvents(log.header, log.events);
    expect(session.openTurn?.runId).toBe(log.events[0]!.runId);
    expect(session.pendingCalls.map((call) => call.name)).toEqual(["read_file"]);
    expect(session.goal).toBe("ship it");
    expect(session.usage).toEqual({ inputTokens: 7, outputTokens: 3, cachedInputTokens: 2 });
    expect(session.turnCount).toBe(1);
  });

  it("refuses a turn/end while calls have no output", () => {
    const log = eventLogBuilder().turn().user("go").call("read_file", {}).end();
    expect(() => replayEvents(log.header, log.events)).toThrow(/TURN_NESTING.*no output/);
  });

  it("refuses replaces on a non-surface event", () => {
    const log = eventLogBuilder().turn().user("go");
    log.push({
      type: "error",
      runId: "r",
      code: "X",
      message: "m",
      surfaceOp: "replace",
      replaces: [2],
    });
    expect(() => replayEvents(log.header, log.events)).toThrow(/BAD_REPLACE/);
  });

  it("refuses a compaction that replaces an already replaced seq", () => {
    const log = eventLogBuilder()
      .turn()
      .user("a")
      .assistant("b")
      .compact("s1", [2, 3])
      .compact("s2", [2]);
    expect(() => replayEvents(log.header, log.events)).toThrow(/BAD_REPLACE.*not visible/);
  });

  it("refuses a header whose id differs from the file's", () => {
    const log = eventLogBuilder();
    expect(() => Session.create("0193b6e2-7c1a-7d3e-9f00-00000000ffff", [], log.header)).toThrow(
      /BAD_HEADER.*belongs to session 0193b6e2-7c1a-7d3e-9f00-00000000ffff/,
    );
  });
});

describe("normalize", () => {
  it("yields nothing for a paired history", () => {
    const log = eventLogBuilder()
      .system("s")
      .turn()
      .user("q")
      .call("read_file", {})
      .output("ok")
      .assistant("a")
      .end();
    expect(normalize(replayEvents(log.header, log.events))).toEqual([]);
  });

  it("closes an orphan call with a synthetic error output and an interrupted turn/end", () => {
    const log = eventLogBuilder()
      .turn()
      .user("q")
      .call("run_command", { command: "sleep 100" }, "call_a");
    const session = replayEvents(log.header, log.events);
    const repairs = normalize(session);
    const runId = log.events[0]!.runId;
    expect(repairs).toEqual([
      {
        type: "function_call_output",
        runId,
        callId: "call_a",
        output: INTERRUPTED_OUTPUT,
        isError: true,
        synthetic: true,
        sourceEventSeqs: [3],
      },
      { type: "turn/end", runId, status: "interrupted", synthetic: true },
    ]);
    expect(repairItems(repairs)).toEqual([
      { type: "function_call_output", callId: "call_a", output: INTERRUPTED_OUTPUT, isError: true },
    ]);
  });

  it("repairs only the unanswered calls of a mixed history, in call order", () => {
    const log = eventLogBuilder()
      .turn()
      .user("q")
      .call("read_file", {}, "c1")
      .call("read_file", {}, "c2")
      .call("read_file", {}, "c3")
      .output("done", { callId: "c2" });
    const repairs = normalize(replayEvents(log.header, log.events));
    expect(
      repairs.map((draft) => (draft.type === "function_call_output" ? draft.callId : draft.type)),
    ).toEqual(["c1", "c3", "turn/end"]);
  });

  it("closes an open turn that has no pending calls", () => {
    const log = eventLogBuilder().turn().user("q");
    expect(normalize(replayEvents(log.header, log.events))).toEqual([
      { type: "turn/end", runId: log.events[0]!.runId, status: "interrupted", synthetic: true },
    ]);
  });

  it("is idempotent once its repairs are persisted", () => {
    const log = eventLogBuilder().turn().user("q").call("read_file", {}, "c1");
    const repaired = persist(log.events, normalize(replayEvents(log.header, log.events)));
    const session = replayEvents(log.header, repaired);
    expect(normalize(session)).toEqual([]);
    expect(session.history().at(-1)).toMatchObject({
      type: "function_call_output",
      callId: "c1",
      isError: true,
    });
  });
});

describe("analyzeEventLog", () => {
  it("follows chains of compactions", () => {
    const log = eventLogBuilder()
      .system("s")
      .turn()
      .user("a")
      .assistant("b")
      .compact("first", [3, 4])
      .user("c")
      .compact("second", [5, 6])
      .end();
    const analysis = analyzeEventLog(log.events);
    expect(analysis.currentSeqs).toEqual([1, 7]);
    expect(analysis.replacedBy).toEqual(
      new Map([
        [3, 5],
        [4, 5],
        [5, 7],
        [6, 7],
      ]),
    );
    expect(analysis.replacedEventSeqs).toEqual(
      new Map([
        [5, [3, 4]],
        [7, [5, 6]],
      ]),
    );
    expect(replacementChain(analysis.replacedBy, 3)).toEqual([3, 5, 7]);
    expect(replacementChain(analysis.replacedBy, 1)).toEqual([1]);
  });

  it("puts a summary where the first replaced item stood", () => {
    const log = eventLogBuilder()
      .system("s")
      .turn()
      .user("a")
      .assistant("b")
      .user("c")
      .compact("sum", [4, 3]);
    const session = replayEvents(log.header, log.events);
    expect(session.currentSeqs).toEqual([1, 6, 5]);
    expect(session.history()[1]).toEqual({ type: "compaction", summary: "sum" });
  });
});

describe("replay of a fork", () => {
  it("continues seqs from the parent and uses its surface", () => {
    const parent = eventLogBuilder().system("s").turn().user("a").assistant("b").end();
    const child = eventLogBuilder({ parent: { sessionId: parent.header.sessionId, seq: 3 } });
    child.push({
      type: "turn/end",
      runId: parent.events[1]!.runId,
      status: "interrupted",
      synthetic: true,
    });
    const session = replayEvents(child.header, child.events, { parentEvents: parent.events });
    expect(session.lastSeq).toBe(4);
    expect(session.history()).toEqual([
      { type: "message", role: "system", content: "s" },
      { type: "message", role: "user", content: "a" },
    ]);
  });

  it("refuses a fork point past the parent's end", () => {
    const parent = eventLogBuilder().system("s");
    const child = eventLogBuilder({ parent: { sessionId: parent.header.sessionId, seq: 9 } });
    expect(() => replayEvents(child.header, [], { parentEvents: parent.events })).toThrow(
      /BAD_HEADER.*ends at seq 1/,
    );
  });
});

describe("errors", () => {
  it("are recognised across bundles through their marker, not instanceof", () => {
    const foreign = Object.assign(Object.create(null), {
      [Symbol.for("tapedeck.error")]: true,
      [Symbol.for("tapedeck.error.SessionBusyError")]: true,
    });
    expect(TapedeckError.isInstance(foreign)).toBe(true);
    expect(SessionBusyError.isInstance(foreign)).toBe(true);
    expect(SessionNotFoundError.isInstance(foreign)).toBe(false);
    expect(TapedeckError.isInstance(new Error("plain"))).toBe(false);
    const notFound = new SessionNotFoundError("abc");
    expect(TapedeckError.isInstance(notFound)).toBe(true);
    expect(notFound.code).toBe("SESSION_NOT_FOUND");
  });
});

describe("model/response refusal", () => {
  const line = (extra: Record<string, unknown>) =>
    JSON.stringify({
      seq: 4,
      ts: "2026-01-02T00:00:00.000Z",
      type: "model/response",
      runId: "r",
      requestId: "req_1",
      finishReason: "stop",
      ...extra,
    });

  it("keeps the refusal text of a model that declined", () => {
    const event = parseEventLine(line({ refusal: "I can't help with that." }));
    expect(event.type === "model/response" && event.refusal).toBe("I can't help with that.");
  });

  it("refuses a refusal that is not a string", () => {
    expect(() => parseEventLine(line({ refusal: 42 }))).toThrow(EventLogCorruptError);
  });

  it("refuses refusal as a finish reason (version 1 readers know five)", () => {
    expect(() => parseEventLine(line({ finishReason: "refusal" }))).toThrow(EventLogCorruptError);
  });
});
