import { isSessionId, SessionNotFoundError, TapedeckError } from "@tapedeck/session";
import { InvalidForkPointError, type SessionStore } from "@tapedeck/session-store";
import { AmbiguousSessionIdError } from "./errors";

/** Shortest id prefix accepted on the command line. */
export const MIN_PREFIX = 6;
/** Shortest short id shown to people (longer where needed to be unique). */
export const MIN_SHORT_ID = 8;

/**
 * Resolves a full session id, or a unique prefix of at least {@link MIN_PREFIX} characters (every
 * short id from {@link shortIds} is one).
 *
 * @throws SessionNotFoundError, AmbiguousSessionIdError, TapedeckError `INVALID_SESSION_ID`
 */
export async function resolveSessionId(
  store: SessionStore,
  text: string,
  /** Ids known elsewhere starting with a prefix (the team index's sessions of other machines). */
  elsewhere?: (prefix: string) => Promise<string[]>,
): Promise<string> {
  const wanted = text.trim().toLowerCase();
  if (isSessionId(wanted)) return wanted;
  if (wanted.length < MIN_PREFIX || !/^[0-9a-f-]+$/.test(wanted)) {
    throw new TapedeckError(
      "INVALID_SESSION_ID",
      `${JSON.stringify(text)} is not a session id or a prefix of at least ${MIN_PREFIX} hex characters.`,
    );
  }
  const candidates = [
    ...new Set([
      ...(await sessionIdsOnDisk(store)).filter((id) => id.startsWith(wanted)),
      ...(elsewhere === undefined ? [] : await elsewhere(wanted)),
    ]),
  ].sort();
  if (candidates.length === 0) throw new SessionNotFoundError(text);
  if (candidates.length > 1) throw new AmbiguousSessionIdError(text, candidates);
  return candidates[0] as string;
}

/**
 * The ids of every log file in the store, sorted, including logs whose header is damaged (which
 * `store.list()` skips), so `verify --all` reports them and a prefix finds them.
 */
export function sessionIdsOnDisk(store: SessionStore): Promise<string[]> {
  return store.sessionIds();
}

function commonPrefix(a: string, b: string): number {
  let length = 0;
  while (length < a.length && a[length] === b[length]) length += 1;
  return length;
}

/**
 * The short form of each id: its shortest prefix of at least {@link MIN_SHORT_ID} characters that
 * no other id of `ids` starts with (a prefix never ends on a `-`). UUIDv7 ids share their first 12
 * characters within a millisecond and 8 within a minute, so a fixed-length prefix is not unique;
 * this is. Given every session id of a home, each short id is accepted back by
 * {@link resolveSessionId}. The one function every surface uses (CLI, ACP titles, web payloads).
 */
export function shortIds(ids: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const result = new Map<string, string>();
  sorted.forEach((id, index) => {
    const before = index > 0 ? commonPrefix(id, sorted[index - 1] as string) : 0;
    const after = index + 1 < sorted.length ? commonPrefix(id, sorted[index + 1] as string) : 0;
    let length = Math.max(MIN_SHORT_ID, before + 1, after + 1);
    while (length < id.length && id[length - 1] === "-") length += 1;
    result.set(id, id.slice(0, Math.min(length, id.length)));
  });
  return result;
}

/** Splits `ID[@SEQ]` (`--fork`). */
export function parseForkSpec(text: string): { id: string; seq?: number } {
  const at = text.lastIndexOf("@");
  if (at === -1) return { id: text };
  const seqText = text.slice(at + 1);
  const seq = Number(seqText);
  if (!/^\d+$/.test(seqText) || !Number.isSafeInteger(seq)) {
    throw new InvalidForkPointError(`--fork ${text}: the part after @ must be a seq number.`);
  }
  return { id: text.slice(0, at), seq };
}
