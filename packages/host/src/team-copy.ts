/**
 * Continuing or forking a session logged on another machine: the team index holds it, the run
 * needs its log here. The session (and, for a fork by reference, every ancestor missing here) is
 * copied into the local home first, exactly as the index replays it: the header, then its own
 * events, adopted by the store (which journals it and never overwrites a log).
 */
import { TapedeckError } from "@tapedeck/session";
import type { SessionQueryEngine } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";

/** Deepest fork chain copied (a guard against reference cycles). */
const maxDepth = 1000;

/**
 * Copies `sessionId` from the index into the home unless its log is already here; returns the
 * ids copied, ancestors first (empty when nothing was needed).
 *
 * @throws SessionNotFoundError when the index does not have it either.
 * @throws EventLogCorruptError when it is damaged (nothing is copied).
 */
export async function copyFromTeamIndex(
  store: SessionStore,
  engine: SessionQueryEngine,
  sessionId: string,
  depth = 0,
): Promise<string[]> {
  if (store.entry(sessionId) !== null || depth > maxDepth) return [];
  const session = await engine.readSession({ all: true }, sessionId);
  const parent = session.header.parent;
  const copied =
    parent === undefined ? [] : await copyFromTeamIndex(store, engine, parent.sessionId, depth + 1);
  const own = session.events.filter((event) => event.seq > (parent?.seq ?? 0));
  const text = [session.header, ...own].map((line) => `${JSON.stringify(line)}\n`).join("");
  try {
    // The store writes it (journalled first, never over a log that appeared meanwhile).
    await store.adoptLog(text);
  } catch (error) {
    if (TapedeckError.isInstance(error) && error.code === "SESSION_EXISTS") return copied;
    throw error;
  }
  return [...copied, sessionId];
}
