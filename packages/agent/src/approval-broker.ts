import type { ApprovalDecision } from "@tapedeck/session";
import type { ApprovalRequest, Approver } from "./run-turn";

/** An approval waiting for a person, as a surface lists it. */
export interface PendingApproval {
  request: ApprovalRequest;
  /** When the run asked. */
  askedAt: Date;
}

/**
 * The pending approvals of the runs in this process, keyed by runId. A surface that answers
 * asynchronously (the web server: the question goes out over SSE, the answer comes back in another
 * HTTP request) passes `broker.approver` to `runTurn` and calls `resolve` when the answer arrives.
 * The durable record is the `approval/request` / `approval/decision` pair in the log; this is only
 * the in-process wait.
 */
export interface ApprovalBroker {
  /** Pass to `runTurn({ approve })`. */
  readonly approver: Approver;
  /** Approvals waiting for an answer (of one run, or of all runs). */
  pending(runId?: string): PendingApproval[];
  /**
   * Answers a pending approval. Returns false when nothing with that runId/callId is waiting (already
   * answered, cancelled, or never asked): a late or duplicate answer is harmless.
   */
  resolve(runId: string, callId: string, decision: ApprovalDecision): boolean;
}

/** A new, empty broker. */
export function createApprovalBroker(): ApprovalBroker {
  const waiting = new Map<
    string,
    { entry: PendingApproval; settle: (decision: ApprovalDecision) => void }
  >();
  const key = (runId: string, callId: string) => `${runId}\u0000${callId}`;
  return {
    approver: (request, signal) =>
      new Promise<ApprovalDecision>((resolve) => {
        const id = key(request.runId, request.callId);
        const settle = (decision: ApprovalDecision) => {
          if (!waiting.delete(id)) return;
          signal.removeEventListener("abort", onAbort);
          resolve(decision);
        };
        const onAbort = () => settle("cancelled");
        waiting.set(id, { entry: { request, askedAt: new Date() }, settle });
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    pending: (runId) =>
      [...waiting.values()]
        .map((value) => value.entry)
        .filter((entry) => runId === undefined || entry.request.runId === runId),
    resolve(runId, callId, decision) {
      const waiter = waiting.get(key(runId, callId));
      if (waiter === undefined) return false;
      waiter.settle(decision);
      return true;
    },
  };
}
