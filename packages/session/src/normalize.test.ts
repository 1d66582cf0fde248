import { describe, expect, it } from "vitest";
import { sessionCallId } from "./call-ids";
import { INTERRUPTED_OUTPUT, normalize } from "./normalize";
import { replayEvents } from "./replay";
import type { SessionEvent, SessionEventDraft } from "./schema";
import { eventLogBuilder } from "./testing";

function persist(events: SessionEvent[], drafts: SessionEventDraft[]): SessionEvent[] {
  let seq = events.at(-1)?.seq ?? 0;
  return [
    ...events,
    ...drafts.map(
      (draft) => ({ ...draft, seq: ++seq, ts: "2026-01-02T00:00:00.000Z" }) as SessionEvent,
    ),
  ];
}

/** A run that crashed while `write_file` waited for a person's approval. */
function crashedAtApproval() {
  const log = eventLogBuilder()
    .turn({ policy: { approval: "ask" } })
    .user("write it");
  log.call("write_file", { path: "a.txt", content: "x" }, "call_w");
  const runId = log.events[0]!.runId;
  const request = log.push({
    type: "approval/request",
    runId,
    callId: "call_w",
    options: ["allow_once", "allow_always", "reject"],
  });
  return { log, runId, request };
}

describe("normalize: approvals a crash left waiting", () => {
  it("closes an approval/request with no decision with a synthetic cancelled decision, before the call's output", () => {
    const { log, runId, request } = crashedAtApproval();
    const repairs = normalize(replayEvents(log.header, log.events));
    expect(repairs.map((draft) => draft.type)).toEqual([
      "approval/decision",
      "function_call_output",
      "turn/end",
    ]);
    expect(repairs[0]).toEqual({
      type: "approval/decision",
      runId,
      callId: "call_w",
      decision: "cancelled",
      synthetic: true,
      sourceEventSeqs: [request.seq],
    });
  });

  it("yields a log that replays and needs no second repair", () => {
    const { log } = crashedAtApproval();
    const repaired = persist(log.events, normalize(replayEvents(log.header, log.events)));
    const session = replayEvents(log.header, repaired);
    expect(session.pendingApprovals).toEqual([]);
    expect(normalize(session)).toEqual([]);
  });

  it("leaves answered approvals alone", () => {
    const { log, runId } = crashedAtApproval();
    log.push({ type: "approval/decision", runId, callId: "call_w", decision: "allow_once" });
    const repairs = normalize(replayEvents(log.header, log.events));
    expect(repairs.map((draft) => draft.type)).toEqual(["function_call_output", "turn/end"]);
  });
});

describe("normalize: notes about a call's process group", () => {
  it("appends the note after the fixed interrupted text, only for the named call", () => {
    const log = eventLogBuilder().turn().user("q");
    log.call("run_command", { command: "sleep 60" }, "c1").call("read_file", {}, "c2");
    const repairs = normalize(replayEvents(log.header, log.events), {
      notes: new Map([["c1", "Its process group 42 was still running; it was ended."]]),
    });
    const outputs = repairs.flatMap((draft) =>
      draft.type === "function_call_output" ? [draft.output] : [],
    );
    expect(outputs).toEqual([
      `${INTERRUPTED_OUTPUT} Its process group 42 was still running; it was ended.`,
      INTERRUPTED_OUTPUT,
    ]);
  });

  it("exposes a pending call's x-process/start record, and ignores a malformed one", () => {
    const log = eventLogBuilder().turn().user("q");
    log.call("run_command", { command: "sleep 60" }, "c1").call("run_command", {}, "c2");
    const runId = log.events[0]!.runId;
    const process = { pid: 4242, pgid: 4242, host: "box", startedAt: "2026-01-01T00:00:01.000Z" };
    log.push({ type: "x-process/start", runId, callId: "c1", process, sourceEventSeqs: [3] });
    log.push({ type: "x-process/start", runId, callId: "c2", process: { pid: "no" } });
    const session = replayEvents(log.header, log.events);
    expect(session.pendingCalls.map((call) => [call.callId, call.process])).toEqual([
      ["c1", process],
      ["c2", undefined],
    ]);
  });
});

describe("sessionCallId", () => {
  it("keeps a fresh provider id and renames a reused one deterministically", () => {
    const log = eventLogBuilder().turn().user("q").call("read_file", {}, "call_1").output("ok");
    const session = replayEvents(log.header, log.events);
    expect(sessionCallId(session, "call_2")).toBe("call_2");
    expect(sessionCallId(session, "call_1")).toBe("call_1_2");
    expect(sessionCallId(session, "call_1", new Set(["call_1_2"]))).toBe("call_1_3");
  });
});
