import type { CheckpointRecord, SessionEvent } from "@tapedeck/session";

/** One checkpoint a session's log records. */
export interface LoggedCheckpoint {
  /** The event that carries it. */
  seq: number;
  type: "turn/start" | "function_call_output";
  /** The call (function_call_output only). */
  callId?: string;
  checkpoint: CheckpointRecord;
}

/** Every checkpoint recorded in `events`, in log order (skipped ones included). */
export function loggedCheckpoints(events: Iterable<SessionEvent>): LoggedCheckpoint[] {
  const found: LoggedCheckpoint[] = [];
  for (const event of events) {
    if (event.type === "turn/start" && event.checkpoint !== undefined) {
      found.push({ seq: event.seq, type: event.type, checkpoint: event.checkpoint });
    } else if (event.type === "function_call_output" && event.checkpoint !== undefined) {
      found.push({
        seq: event.seq,
        type: event.type,
        callId: event.callId,
        checkpoint: event.checkpoint,
      });
    }
  }
  return found;
}

/** The latest taken checkpoint (with an `id`) at or before `seq`, or undefined. */
export function checkpointAt(
  checkpoints: readonly LoggedCheckpoint[],
  seq: number = Number.POSITIVE_INFINITY,
): (LoggedCheckpoint & { checkpoint: { id: string } }) | undefined {
  let found: (LoggedCheckpoint & { checkpoint: { id: string } }) | undefined;
  for (const entry of checkpoints) {
    if (entry.seq > seq) break;
    const id = entry.checkpoint.id;
    if (id !== undefined) found = { ...entry, checkpoint: { ...entry.checkpoint, id } };
  }
  return found;
}
