import { describe, expect, it } from "vitest";
import { applyRunEvent, type RunState, shownStatus, startingRun } from "./run-state";

function fold(
  events: Array<[string, Record<string, unknown>]>,
  from: RunState = startingRun(null),
) {
  return events.reduce((run, [event, data]) => applyRunEvent(run, event, data), from);
}

const started: [string, Record<string, unknown>] = [
  "run_started",
  { runId: "r1", sessionId: "s1", resumed: false },
];
const asked: [string, Record<string, unknown>] = [
  "approval_request",
  { callId: "c1", name: "run_command", title: "rm -rf /" },
];

describe("run state from the event stream", () => {
  it("ends completed after Deny when the model answers (nothing sets running after the end)", () => {
    const run = fold([
      started,
      asked,
      ["approval_decision", { callId: "c1", decision: "reject" }],
      ["text_delta", { text: "Not running it." }],
      ["run_finished", { status: "completed" }],
      // A late event (or a replayed one) cannot reopen a finished run.
      ["approval_decision", { callId: "c1", decision: "reject" }],
    ]);
    expect(run.status).toBe("completed");
    expect(run.approvals).toEqual([]);
    expect(run.text).toBe("Not running it.");
  });

  it("waits while any approval is pending and runs once all are decided", () => {
    const two = fold([
      started,
      asked,
      ["approval_request", { callId: "c2", name: "write_file", title: "x" }],
      ["approval_decision", { callId: "c1", decision: "allow_once" }],
    ]);
    expect(two.status).toBe("waiting_approval");
    expect(fold([["approval_decision", { callId: "c2", decision: "reject" }]], two).status).toBe(
      "running",
    );
  });

  it("shows cancelling while a Cancel is in flight, and the stream's final status after", () => {
    const running = fold([started]);
    expect(shownStatus({ ...running, cancelling: true })).toBe("cancelling");
    const done = fold([["run_finished", { status: "cancelled" }]], {
      ...running,
      cancelling: true,
    });
    expect(shownStatus(done)).toBe("cancelled");
  });
});
