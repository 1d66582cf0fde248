/**
 * One step of `useAgentRun`: reading a run's event stream into the run state, for a run this
 * page starts and for one it re-attaches to.
 */
import type { Dispatch, SetStateAction } from "react";
import { ApiError, type RunStreamEvent } from "./api";
import { applyRunEvent, type RunState } from "./run-state";

/** What {@link followRunStream} reads and whom it tells. */
export interface FollowRunOptions {
  stream: () => Promise<AsyncIterable<RunStreamEvent>>;
  /** The run before its first event (its session, if it continues one). */
  initial: RunState;
  abort: AbortController;
  setRun: Dispatch<SetStateAction<RunState | null>>;
  /** Called on `run_started` with the run's session. */
  onRunStarted(sessionId: string): void;
  /** Called once the stream ended, failed or was aborted, with the run's session if it had one. */
  onDone(sessionId: string | null): void;
}

/** The run after its stream failed (not by aborting): the error is shown, a run never started ends. */
export function failedRun(current: RunState, caught: unknown): RunState {
  const message = caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught);
  const errored = applyRunEvent(current, {
    event: "error",
    data: {
      code: caught instanceof ApiError ? caught.code : "NETWORK",
      message: caught instanceof ApiError ? caught.message : message,
    },
  });
  return errored.runId !== null ? errored : { ...errored, status: "error" };
}

/** Applies each event of the run's stream to the run state until the stream ends. */
export async function followRunStream(options: FollowRunOptions): Promise<void> {
  const { abort, setRun } = options;
  let sessionId = options.initial.sessionId;
  try {
    for await (const message of await options.stream()) {
      setRun((current) => (current === null ? current : applyRunEvent(current, message)));
      if (message.event === "run_started") {
        sessionId = message.data.sessionId;
        options.onRunStarted(sessionId);
      }
    }
  } catch (caught) {
    if (!abort.signal.aborted)
      setRun((current) => (current === null ? current : failedRun(current, caught)));
  } finally {
    options.onDone(sessionId);
  }
}
