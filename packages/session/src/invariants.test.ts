import { describe, expect, it } from "vitest";
import { EventLogCorruptError } from "./errors";
import {
  emptyInvariantState,
  invariantError,
  invariantSnapshot,
  isInvariantViolation,
  restoreInvariantState,
  stepInvariants,
} from "./invariants";
import type { SessionEvent } from "./schema";
import { Session } from "./session";
import { eventLogBuilder, generateCorpus } from "./testing";

type Verdict =
  | { code: string; seq: number | undefined; message: string; detail: string }
  | "accepted";

function verdictOf(run: () => void): Verdict {
  try {
    run();
    return "accepted";
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    return { code: error.code, seq: error.seq, message: error.message, detail: error.detail };
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
  let state = emptyInvariantState();
  return verdictOf(() => {
    events.forEach((event, index) => {
      if (index === cut) {
        // Kept as JSON between two syncs.
        const kept = restoreInvariantState(JSON.parse(JSON.stringify(invariantSnapshot(state))));
        if (kept === null) throw new Error("the snapshot did not restore");
        state = kept;
      }
      const next = stepInvariants(state, event);
      if (isInvariantViolation(next)) throw invariantError(next, event, sessionId);
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
  add((log) =>
    log.push({
      type: "function_call_output",
      runId,
      callId: "c9",
      output: "orphan",
      isError: false,
      sourceEventSeqs: [1],
    }),
  );
  add((log) =>
    log.push({ type: "message", runId, role: "user", content: "x", surfaceOp: "replace" }),
  );
  add((log) => log.compact("s", [2, 2]));
  return logs;
}

describe("stepInvariants", () => {
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

  it("reports each violation with the code and sentence replay has always reported", () => {
    const sessionId = "0193a000-0000-7000-8000-000000000001";
    const verdicts = damagedLogs().map((events) => {
      const verdict = replayVerdict(sessionId, events);
      return verdict === "accepted" ? verdict : [verdict.code, verdict.detail];
    });
    expect(verdicts).toEqual([
      ["DUPLICATE_CALL_ID", 'callId "c1" was already used by the function_call at seq 3'],
      ["DUPLICATE_OUTPUT", 'callId "c1" (seq 3) already has an output'],
      ["TURN_NESTING", "function_call_output outside a turn (no open turn/start)"],
      ["TURN_NESTING", "turn/end while function calls have no output: c2 (seq 8)"],
      ["TURN_NESTING", "turn/start while the turn started at seq 6 is still open"],
      ["TURN_NESTING", "turn/end with no open turn"],
      ["BAD_REPLACE", "replaces seq 3, which is not visible on the surface"],
      ["BAD_REPLACE", "replaces seq 9, which is not earlier"],
      ["BAD_SOURCE", "sourceEventSeqs cites seq 99, which is not earlier than 8"],
      ["BAD_SOURCE", "sourceEventSeqs must cite the function_call at seq 8"],
      ["SEQ_GAP", "expected seq 8 after seq 7, found seq 9"],
      ["ORPHAN_OUTPUT", 'output for callId "c9", which no earlier function_call has'],
      ["BAD_REPLACE", 'replaces and surfaceOp:"replace" go together, on surface items only'],
      ["BAD_REPLACE", "replaces seq 2, which is listed twice"],
    ]);
  });

  it("restores nothing from a value it did not write", () => {
    for (const value of [null, 1, {}, { v: 2 }, { v: 1, last: 1, turn: null, calls: [[1, 1]] }]) {
      expect(restoreInvariantState(value)).toBeNull();
    }
  });
});
