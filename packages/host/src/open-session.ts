import { repairInterruptedRun } from "@tapedeck/agent";
import { EventLogCorruptError, normalize, type Session, SessionBusyError } from "@tapedeck/session";
import type { SessionStore, SessionWriter } from "@tapedeck/session-store";
import type { SessionTrustLedger } from "./session-trust";

/**
 * Opens a session for a surface: a torn tail is moved aside, and when its last run was cut off
 * the repairs (`repairInterruptedRun`: normalize, after ending an orphaned tool process group) are
 * written first. While another live process holds the session its open
 * turn is running, not interrupted: the session is returned as it stands, unrepaired (a run on it
 * gets `SessionBusyError`).
 *
 * @throws SessionNotFoundError, EventLogCorruptError (damage other than a torn tail)
 */
export async function openSession(store: SessionStore, sessionId: string): Promise<Session> {
  let session: Session;
  try {
    session = await store.readSession(sessionId);
  } catch (error) {
    if (!(EventLogCorruptError.isInstance(error) && error.code === "TORN_TAIL")) throw error;
    await store.repair(sessionId);
    session = await store.readSession(sessionId);
  }
  if (normalize(session).length === 0) return session;
  let writer: SessionWriter;
  try {
    writer = await store.openWriter(sessionId);
  } catch (error) {
    if (SessionBusyError.isInstance(error)) return session;
    throw error;
  }
  try {
    // The agent's repair path: it also ends a tool process group the crashed run left running.
    const repairs = await repairInterruptedRun(await writer.loadSession());
    if (repairs.length > 0) await writer.append(repairs);
    return writer.session;
  } finally {
    await writer.close();
  }
}

/**
 * The approval mode and model a session's last turn ran with (what a reload restores). A log is
 * data: an imported session (header `origin`) opens in `ask`, and `auto` is restored only when this
 * home ran the session under `auto` (`trust`: the home's `approval auto` entry); otherwise `ask`.
 */
export function lastTurnSettings(
  session: Pick<Session, "sessionId" | "header" | "events">,
  trust?: SessionTrustLedger,
): { approval: "ask" | "auto" | "deny"; model: string } | undefined {
  const imported = (session.header as { origin?: unknown }).origin !== undefined;
  for (let index = session.events.length - 1; index >= 0; index -= 1) {
    const event = session.events[index];
    if (event?.type === "turn/start") {
      const recorded = event.policy.approval;
      const ownAuto =
        recorded === "auto" && trust?.has([session.sessionId], "approval auto") === true;
      const approval = imported || (recorded === "auto" && !ownAuto) ? "ask" : recorded;
      return { approval, model: event.model };
    }
  }
  return undefined;
}
