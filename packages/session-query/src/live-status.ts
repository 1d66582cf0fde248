import type { SessionSummary } from "./query-engine";

/**
 * An index cannot tell a run that is writing from one whose process died mid-turn: both leave a
 * turn open, so both are `active`. An app that can ask whether a live process holds a session
 * (the store's `lockOwner`) passes the summaries through this to show the dead ones as
 * `interrupted` — what resuming them will record. Returns copies; the input is not changed.
 */
export async function settleActiveSessions<T extends Pick<SessionSummary, "id" | "status">>(
  items: readonly T[],
  isLive: (sessionId: string) => Promise<boolean>,
): Promise<T[]> {
  return Promise.all(
    items.map(async (item) =>
      item.status === "active" && !(await isLive(item.id))
        ? { ...item, status: "interrupted" as const }
        : item,
    ),
  );
}
