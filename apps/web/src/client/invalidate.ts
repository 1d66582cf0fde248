/**
 * What a write makes stale, in one place: the mutations (fork, rewind, restore, undo, import,
 * demo, goal) invalidate these keys on success instead of bumping a refresh counter by hand. The
 * change feed (`GET /api/live`) would say the same a moment later; invalidating makes the
 * page's own write show at once.
 */
import type { QueryClient } from "@tanstack/react-query";

/** The sidebar's lists (sessions, event hits, workspaces): a write added or changed a session. */
export function invalidateLists(client: QueryClient): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: ["sessions"] }),
    client.invalidateQueries({ queryKey: ["events"] }),
    client.invalidateQueries({ queryKey: ["workspaces"] }),
  ]).then(() => undefined);
}

/**
 * A session's files and forks changed (a rewind, a restore or its undo, a fork): the lists, the
 * lineage (a new fork) and its checkpoint files' diffs (the workspace is not what it was).
 */
export function invalidateSession(client: QueryClient, sessionId: string): Promise<void> {
  return Promise.all([
    invalidateLists(client),
    client.invalidateQueries({ queryKey: ["lineage", sessionId] }),
    client.invalidateQueries({ queryKey: ["checkpoint-file", sessionId] }),
  ]).then(() => undefined);
}
