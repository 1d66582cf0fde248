/**
 * Starts, follows, answers and cancels runs; the state comes from the run's event stream only. A
 * run belongs to the server: leaving the page does not end it, and opening its session again
 * re-attaches to it (`attach`), replaying its events so the run card and approvals come back.
 */
import { useCallback, useRef, useState } from "react";
import { api, type RunBody, type RunStreamEvent } from "./api";
import { followRunStream } from "./follow-run-stream";
import { type RunState, startingRun } from "./run-state";

/** How a run's tool calls are approved (`ask`, `auto`, `deny`). */
export type RunPolicy = NonNullable<RunBody["policy"]>;

/** What {@link useAgentRun} returns. */
export interface AgentRun {
  run: RunState | null;
  /** Starts a run; `onAccepted` is called when the server confirmed it (`run_started`). */
  start(
    input: string,
    continuing: string | null,
    policy: RunPolicy,
    onAccepted?: () => void,
  ): Promise<void>;
  /**
   * Follows the run in progress on this session, if there is one and the page follows no other
   * (after a reload, or when the session is opened again).
   */
  attach(sessionId: string): Promise<void>;
  cancel(): Promise<void>;
  decide(callId: string, decision: "allow_once" | "reject"): Promise<void>;
}

/** The run the page follows. */
export function useAgentRun(
  onStarted: (sessionId: string) => void,
  onFinished: (sessionId: string) => void,
): AgentRun {
  const [run, setRun] = useState<RunState | null>(null);
  const controller = useRef<AbortController | null>(null);
  // Whether a run's stream is being followed now (the page follows one run at a time).
  const following = useRef(false);

  const follow = useCallback(
    async (
      stream: () => Promise<AsyncIterable<RunStreamEvent>>,
      initial: RunState,
      abort: AbortController,
      onAccepted?: () => void,
    ) => {
      following.current = true;
      setRun(initial);
      await followRunStream({
        stream,
        initial,
        abort,
        setRun,
        onRunStarted: (sessionId) => {
          onAccepted?.();
          onStarted(sessionId);
        },
        onDone: (sessionId) => {
          if (controller.current === abort) following.current = false;
          if (sessionId !== null) onFinished(sessionId);
        },
      });
    },
    [onStarted, onFinished],
  );

  const start = useCallback(
    async (
      input: string,
      continuing: string | null,
      policy: RunPolicy,
      onAccepted?: () => void,
    ) => {
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      const body = { input, policy, ...(continuing === null ? {} : { sessionId: continuing }) };
      await follow(
        () => api.startRun(body, abort.signal),
        startingRun(continuing),
        abort,
        onAccepted,
      );
    },
    [follow],
  );

  const attaching = useRef(false);
  const attach = useCallback(
    async (sessionId: string) => {
      if (following.current || attaching.current) return;
      attaching.current = true;
      try {
        const { run: active } = await api.sessionRun(sessionId);
        // Nothing runs there, or this page started a run meanwhile.
        if (active === null || following.current) return;
        controller.current?.abort();
        const abort = new AbortController();
        controller.current = abort;
        const events = await api.runEvents(active.runId, abort.signal);
        await follow(async () => events, startingRun(active.resumed ? sessionId : null), abort);
      } catch {
        // The run ended between the two requests (NO_SUCH_RUN): the session's log has it all.
      } finally {
        attaching.current = false;
      }
    },
    [follow],
  );

  const cancel = useCallback(async () => {
    if (run?.runId == null) return;
    setRun((current) => (current === null ? current : { ...current, cancelling: true }));
    await api.cancel(run.runId).catch(() => undefined);
  }, [run]);

  // The decision's effect (`approval_decision`, then more events) comes from the stream; the reply
  // to this request changes nothing (it used to set "running" after "completed" had arrived).
  const decide = useCallback(
    async (callId: string, decision: "allow_once" | "reject") => {
      if (run?.runId == null) return;
      await api.approve(run.runId, callId, decision).catch((caught: unknown) => {
        setRun((current) =>
          current === null
            ? current
            : { ...current, error: caught instanceof Error ? caught.message : String(caught) },
        );
      });
    },
    [run],
  );

  return { run, start, attach, cancel, decide };
}
