/**
 * The state of a run as the page shows it, folded from the run's event stream only, in order. A
 * button press (Approve, Deny, Cancel) never sets the state itself: its effect arrives as an event
 * (`approval_decision`, `run_finished`), so a late HTTP reply cannot undo what the stream said.
 */

import type { RunStreamEvent } from "./api";

/** The run the page follows (or last followed). */
export interface RunState {
  runId: string | null;
  sessionId: string | null;
  /** The session this run continues, if any. */
  continuing: string | null;
  resumed: boolean;
  status: string;
  text: string;
  tools: Array<{ callId: string; name: string; title: string; state: string; output?: string }>;
  approvals: Array<{ callId: string; name: string; title: string; hiddenCharacters: boolean }>;
  error: string | null;
  /** Where a session from elsewhere works, said on its first run here (`run_started`). */
  notice: string | null;
  /** Set by the page while a Cancel is in flight; cleared by the stream's `run_finished`. */
  cancelling: boolean;
}

/** Statuses after which the run is over. */
export const FINISHED_STATUSES: ReadonlySet<string> = new Set([
  "completed",
  "cancelled",
  "failed",
  "interrupted",
  "error",
]);

/** A run about to start. */
export function startingRun(continuing: string | null): RunState {
  return {
    runId: null,
    sessionId: continuing,
    continuing,
    resumed: continuing !== null,
    status: "starting",
    text: "",
    tools: [],
    approvals: [],
    error: null,
    notice: null,
    cancelling: false,
  };
}

/**
 * Folds one SSE event of `POST /api/agent/stream` (or a re-attached stream) into the state. An
 * `error` event is a run's error, or one from the server before the run started or after it ended.
 */
export function applyRunEvent(run: RunState, message: RunStreamEvent): RunState {
  // Nothing changes a finished run but a new one.
  if (FINISHED_STATUSES.has(run.status) && message.event !== "run_started") return run;
  switch (message.event) {
    case "run_started": {
      const { runId, sessionId, resumed, notice } = message.data;
      return { ...run, runId, sessionId, resumed, status: "running", notice: notice ?? null };
    }
    case "text_delta":
      return { ...run, text: run.text + message.data.text };
    case "tool_call": {
      const { callId, name, title } = message.data;
      return {
        ...run,
        tools: [
          ...run.tools.filter((tool) => tool.callId !== callId),
          { callId, name, title, state: "pending" },
        ],
      };
    }
    case "tool_result": {
      const { callId, isError, output } = message.data;
      return {
        ...run,
        tools: run.tools.map((tool) =>
          tool.callId === callId ? { ...tool, state: isError ? "error" : "done", output } : tool,
        ),
      };
    }
    case "approval_request": {
      const { callId, name, title, hiddenCharacters } = message.data;
      return {
        ...run,
        status: "waiting_approval",
        approvals: [
          ...run.approvals.filter((approval) => approval.callId !== callId),
          { callId, name, title, hiddenCharacters },
        ],
      };
    }
    case "approval_decision": {
      const { callId } = message.data;
      const approvals = run.approvals.filter((approval) => approval.callId !== callId);
      return { ...run, status: approvals.length > 0 ? "waiting_approval" : "running", approvals };
    }
    case "run_finished":
      return { ...run, status: message.data.status, approvals: [], cancelling: false };
    case "error":
      return {
        ...run,
        status: run.runId === null ? "error" : run.status,
        error: `${message.data.code}: ${message.data.message}`,
      };
    default:
      return run;
  }
}

/** The status to show: the stream's, or `cancelling` while a Cancel is in flight. */
export function shownStatus(run: RunState): string {
  return run.cancelling && !FINISHED_STATUSES.has(run.status) ? "cancelling" : run.status;
}
