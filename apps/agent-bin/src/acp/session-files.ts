import { EventLogCorruptError, normalize, type Session } from "@tapedeck/session";
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
 * torn tail aside). Throws `SessionBusyError` when repairs are needed while another process holds
 * the session.
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
  const writer = await store.openWriter(sessionId);
  try {
    const repairs = normalize(writer.session);
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
