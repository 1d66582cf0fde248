import type { SessionEventDraft } from "./schema";
import type { Session } from "./session";
import type { FunctionCallOutputItem } from "./surface";

/** The output text of a synthetic repair, fixed by the log format. */
export const INTERRUPTED_OUTPUT =
  "Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run on this session ended.";

/** Options of {@link normalize}. */
export interface NormalizeOptions {
  /**
   * callId → a sentence appended to that call's synthetic output (after
   * {@link INTERRUPTED_OUTPUT}), e.g. what became of the process group the call had started.
   */
  notes?: ReadonlyMap<string, string>;
}

/**
 * The events that repair an interrupted run, without writing them: a synthetic `approval/decision`
 * `cancelled` for every approval request left unanswered (citing the request), one synthetic
 * error output per call that has none (same `callId`, citing the call), then — if a turn is still
 * open — a synthetic `turn/end` with status `interrupted`. Repairs carry the `runId` of the turn
 * they close. Returns `[]` for a session with nothing to repair, so once the repairs are
 * persisted a second call yields nothing.
 */
export function normalize(session: Session, options: NormalizeOptions = {}): SessionEventDraft[] {
  const turn = session.openTurn;
  const drafts: SessionEventDraft[] = [];
  // Approval events stand only inside a turn; a request outside one cannot be answered validly.
  if (turn !== null) {
    for (const approval of session.pendingApprovals) {
      drafts.push({
        type: "approval/decision",
        runId: turn.runId,
        callId: approval.callId,
        decision: "cancelled",
        synthetic: true,
        sourceEventSeqs: [approval.seq],
      });
    }
  }
  for (const call of session.pendingCalls) {
    const note = options.notes?.get(call.callId);
    drafts.push({
      type: "function_call_output",
      runId: turn?.runId ?? call.runId,
      callId: call.callId,
      output: note === undefined ? INTERRUPTED_OUTPUT : `${INTERRUPTED_OUTPUT} ${note}`,
      isError: true,
      synthetic: true,
      sourceEventSeqs: [call.seq],
    });
  }
  if (turn !== null) {
    drafts.push({ type: "turn/end", runId: turn.runId, status: "interrupted", synthetic: true });
  }
  return drafts;
}

/** The surface items the repairs add (the synthetic outputs), in order. */
export function repairItems(drafts: readonly SessionEventDraft[]): FunctionCallOutputItem[] {
  const items: FunctionCallOutputItem[] = [];
  for (const draft of drafts) {
    if (draft.type === "function_call_output") {
      items.push({
        type: "function_call_output",
        callId: draft.callId,
        output: draft.output,
        isError: draft.isError,
      });
    }
  }
  return items;
}
