/** The session's standing goal, set or cleared outside a turn. */
import { uuidv7 } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";

/**
 * Records the session's standing goal (`null` clears it) as a `goal/set` event. Every surface sets
 * goals through this (CLI `--goal`, ACP `/goal`, the viewer's goal control).
 *
 * @throws SessionBusyError while a run of the session holds its log.
 */
export async function setSessionGoal(
  store: SessionStore,
  sessionId: string,
  goal: string | null,
): Promise<void> {
  await store.append(sessionId, [{ type: "goal/set", runId: uuidv7(), goal }]);
}
