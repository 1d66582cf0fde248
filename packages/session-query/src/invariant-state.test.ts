import { EventLogCorruptError, Session, type SessionEvent } from "@tapedeck/session";
import { eventLogBuilder, generateCorpus } from "@tapedeck/session/testing";
import { describe, expect, it } from "vitest";
import { InvariantState } from "./invariant-state";

type Verdict = { code: string; seq: number | undefined; message: string } | "accepted";

function verdictOf(run: () => void): Verdict {
  try {
    run();
    return "accepted";
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    return { code: error.code, seq: error.seq, message: error.message };
  }
}

/** What a replay of the whole log says. */
function replayVerdict(sessionId: string, events: readonly SessionEvent[]): Verdict {
  const session = Session.create(sessionId, [], {
    type: "session",
    version: 1,
    sessionId,
    workspaceId: "/w",
    createdAt: "2026-01-01T00:00:00.000Z",
    cwd: "/w",
    agent: { name: "tapedeck", version: "0.1.0" },
  });
  return verdictOf(() => {
    for (const event of events) session.append(event);
  });
}

/** What the kept state says when the log is indexed in two syncs, cut after `cut` events. */
function cutVerdict(sessionId: string, events: readonly SessionEvent[], cut: number): Verdict {
  let state = InvariantState.empty(sessionId);
  return verdictOf(() => {
    events.forEach((event, index) => {
      if (index === cut) {
        // Kept as JSON between two syncs.
        state = InvariantState.restore(
          sessionId,
          JSON.parse(JSON.stringify(state.snapshot())),
        ) as InvariantState;
      }
      state.append(event);
    });
  });
}

/** Logs that break each invariant somewhere after a sound start. */
function damagedLogs(): SessionEvent[][] {
  const sound = () =>
    eventLogBuilder().turn().user("a").call("ls", {}, "c1").output("x").end().turn().user("b");
  const logs: SessionEvent[][] = [];
  const add = (build: (log: ReturnType<typeof sound>) => void) => {
    const log = sound();
    build(log);
    logs.push(log.events);
  };
  const runId = "r";
  add((log) => log.call("ls", {}, "c1"));
  add((log) => log.output("again", { callId: "c1" }));
  add((log) => log.end().output("outside", { callId: "c1" }));
  add((log) => log.call("cat", {}, "c2").end());
  add((log) => log.turn());
  add((log) => log.end().end());
  add((log) => log.compact("s", [2, 3]).compact("t", [3]));
  add((log) => log.compact("s", [9]));
  add((log) =>
    log.push({ type: "message", runId, role: "user", content: "x", sourceEventSeqs: [99] }),
  );
  add((log) =>
    log.call("cat", {}, "c3").push({
      type: "function_call_output",
      runId,
      callId: "c3",
      output: "no source",
      isError: false,
    }),
  );
  add((log) => {
    log.events.push({ ...log.events.at(-1)!, seq: log.events.at(-1)!.seq + 2 });
  });
  return logs;
}

describe("InvariantState", () => {
  it("refuses exactly what a replay refuses, with the same code, seq and message, wherever the log is cut", () => {
    const logs = [...damagedLogs()];
    for (const log of generateCorpus({ sessions: 4, turns: 4, seed: 7 })) logs.push(log.events);
    let compared = 0;
    for (const events of logs) {
      const sessionId = "0193a000-0000-7000-8000-000000000001";
      const expected = replayVerdict(sessionId, events);
      for (let cut = 0; cut <= events.length; cut += 1) {
        expect(cutVerdict(sessionId, events, cut)).toEqual(expected);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(100);
    expect(
      damagedLogs().map((events) => replayVerdict("0193a000-0000-7000-8000-000000000001", events)),
    ).not.toContain("accepted");
  });

  it("restores nothing from a value it did not write", () => {
    for (const value of [null, 1, {}, { v: 2 }, { v: 1, last: 1, turn: null, calls: [[1, 1]] }]) {
      expect(InvariantState.restore("s", value)).toBeNull();
    }
  });
});
