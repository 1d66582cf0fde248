import { describe, expect, it } from "vitest";
import type { RunStreamEvent } from "./api";
import { applyRunEvent, type RunState, shownStatus, startingRun } from "./run-state";

function fold(events: RunStreamEvent[], from: RunState = startingRun(null)) {
  return events.reduce((run, event) => applyRunEvent(run, event), from);
}

const runId = "r1";
const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 };

const started: RunStreamEvent = {
  event: "run_started",
  data: {
    type: "run_started",
    runId,
    sessionId: "s1",
    resumed: false,
    policy: { approval: "ask" },
    model: "m",
  },
};

function asked(callId: string, name: string, title: string): RunStreamEvent {
  const options = ["allow_once", "reject"] as const;
  return {
    event: "approval_request",
    data: {
      type: "approval_request",
      runId,
      callId,
      name,
      title,
      hiddenCharacters: false,
      options: [...options],
    },
  };
}

function decided(callId: string, decision: "allow_once" | "reject"): RunStreamEvent {
  return {
    event: "approval_decision",
    data: { type: "approval_decision", runId, callId, decision },
  };
}

function finished(status: "completed" | "cancelled"): RunStreamEvent {
  return {
    event: "run_finished",
    data: { type: "run_finished", runId, status, stopReason: "end_turn", usage },
  };
}

describe("run state from the event stream", () => {
  it("keeps the notice of a session from elsewhere's first run (where it will work)", () => {
    const notice = "Session s1 has not run in this home before: it will work in /w.";
    const withNotice: RunStreamEvent = {
      event: "run_started",
      data: {
        type: "run_started",
        runId,
        sessionId: "s1",
        resumed: true,
        policy: { approval: "ask" },
        model: "m",
        notice,
      },
    };
    expect(fold([withNotice]).notice).toBe(notice);
    expect(fold([started]).notice).toBeNull();
  });

  it("ends completed after Deny when the model answers (nothing sets running after the end)", () => {
    const run = fold([
      started,
      asked("c1", "run_command", "rm -rf /"),
      decided("c1", "reject"),
      {
        event: "text_delta",
        data: { type: "text_delta", runId, requestId: "q1", text: "Not running it." },
      },
      finished("completed"),
      // A late event (or a replayed one) cannot reopen a finished run.
      decided("c1", "reject"),
    ]);
    expect(run.status).toBe("completed");
    expect(run.approvals).toEqual([]);
    expect(run.text).toBe("Not running it.");
  });

  it("waits while any approval is pending and runs once all are decided", () => {
    const two = fold([
      started,
      asked("c1", "run_command", "rm -rf /"),
      asked("c2", "write_file", "x"),
      decided("c1", "allow_once"),
    ]);
    expect(two.status).toBe("waiting_approval");
    expect(fold([decided("c2", "reject")], two).status).toBe("running");
  });

  it("shows cancelling while a Cancel is in flight, and the stream's final status after", () => {
    const running = fold([started]);
    expect(shownStatus({ ...running, cancelling: true })).toBe("cancelling");
    const done = fold([finished("cancelled")], {
      ...running,
      cancelling: true,
    });
    expect(shownStatus(done)).toBe("cancelled");
  });
});
