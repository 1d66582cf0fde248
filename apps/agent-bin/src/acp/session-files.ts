import { repairInterruptedRun } from "@tapedeck/agent";
import { EventLogCorruptError, normalize, type Session, SessionBusyError } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";

/** A session listed by `session/list`. */
export interface ListedSession {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt?: string;
}

/**
 * Reads a session, writing the normalize repairs first when its last run was cut off (and moving a
 * torn tail aside). While another live process holds the session its open turn is not an
 * interruption: the session is returned as it stands, unrepaired (prompting it gives the busy
 * error).
 */
export async function normalizedSession(store: SessionStore, sessionId: string): Promise<Session> {
  let session: Session;
  try {
    session = await store.readSession(sessionId);
  } catch (error) {
    if (!(EventLogCorruptError.isInstance(error) && error.code === "TORN_TAIL")) throw error;
    await store.repair(sessionId);
    session = await store.readSession(sessionId);
  }
  if (normalize(session).length === 0) return session;
  let writer: Awaited<ReturnType<SessionStore["openWriter"]>>;
  try {
    writer = await store.openWriter(sessionId);
  } catch (error) {
    // Another live process holds the session: its open turn is running, not interrupted, so
    // there is nothing to repair. Show the history as it stands; a prompt gets the busy error.
    if (SessionBusyError.isInstance(error)) return session;
    throw error;
  }
  try {
    // The agent's repair path: it also ends a tool process group the crashed run left running.
    const repairs = await repairInterruptedRun(writer.session);
    if (repairs.length > 0) await writer.append(repairs);
    return writer.session;
  } finally {
    await writer.close();
  }
}

/** The first line of the first user message, shortened for a list. */
export function titleOf(session: Session): string | undefined {
  for (const event of session.events) {
    if (event.type === "message" && event.role === "user") {
      const line = event.content.trim().split("\n")[0] ?? "";
      return line.length > 80 ? `${line.slice(0, 79)}…` : line;
    }
  }
  return undefined;
}

/**
 * Sessions from the store alone (no index), newest first, optionally of one cwd. Reads every log
 * for its title: fine for tests and small homes; the binary lists from the SQLite index.
 */
export async function listFromStore(
  store: SessionStore,
  cwd: string | undefined,
): Promise<ListedSession[]> {
  const listings = await store.list();
  const chosen = listings
    .filter((listing) => cwd === undefined || listing.header.cwd === cwd)
    .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
  const result: ListedSession[] = [];
  for (const listing of chosen) {
    const entry: ListedSession = {
      sessionId: listing.sessionId,
      cwd: listing.header.cwd,
      updatedAt: listing.modifiedAt.toISOString(),
    };
    try {
      const title = titleOf(await store.readSession(listing.sessionId));
      if (title !== undefined) entry.title = title;
    } catch {
      // a damaged log is still listed, without a title
    }
    result.push(entry);
  }
  return result;
}
