import { normalize, type Session, type SessionEventDraft } from "@tapedeck/session";
import { endOrphanGroup, orphanNote } from "./orphan-group";

/**
 * The repairs of an interrupted run (`normalize`), after ending what it left running: every
 * unanswered call whose tool logged a process group (`x-process/start`) has that group ended
 * when it is still the logged one (same host, leader alive, same start time), and its synthetic
 * output says what became of it. Every surface repairs through this (`initializeRun`, the host's
 * `openSession`), so no resume leaves an orphan running. Nothing is written here.
 */
export async function repairInterruptedRun(session: Session): Promise<SessionEventDraft[]> {
  const notes = new Map<string, string>();
  for (const call of session.pendingCalls) {
    if (call.process === undefined) continue;
    notes.set(call.callId, orphanNote(await endOrphanGroup(call.process)));
  }
  return normalize(session, { notes });
}
