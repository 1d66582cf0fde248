import { readdir } from "node:fs/promises";
import { isSessionId, SessionNotFoundError, TapedeckError } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";

/** Shortest id prefix accepted on the command line. */
export const MIN_PREFIX = 6;

/** A prefix matches several sessions; `candidates` lists them. */
export class AmbiguousSessionIdError extends TapedeckError {
  readonly candidates: string[];

  constructor(prefix: string, candidates: string[]) {
    super(
      "AMBIGUOUS_SESSION_ID",
      `Session id prefix ${JSON.stringify(prefix)} matches ${candidates.length} sessions:\n${candidates.map((id) => `  ${id}`).join("\n")}\nGive more characters.`,
    );
    this.name = "AmbiguousSessionIdError";
    this.candidates = candidates;
  }
}

/**
 * Resolves a full session id or a unique prefix of at least {@link MIN_PREFIX} characters.
 *
 * @throws SessionNotFoundError, AmbiguousSessionIdError, TapedeckError `INVALID_SESSION_ID`
 */
export async function resolveSessionId(store: SessionStore, text: string): Promise<string> {
  const wanted = text.trim().toLowerCase();
  if (isSessionId(wanted)) return wanted;
  if (wanted.length < MIN_PREFIX || !/^[0-9a-f-]+$/.test(wanted)) {
    throw new TapedeckError(
      "INVALID_SESSION_ID",
      `${JSON.stringify(text)} is not a session id or a prefix of at least ${MIN_PREFIX} hex characters.`,
    );
  }
  const candidates = (await sessionIdsOnDisk(store)).filter((id) => id.startsWith(wanted));
  if (candidates.length === 0) throw new SessionNotFoundError(text);
  if (candidates.length > 1) throw new AmbiguousSessionIdError(text, candidates);
  return candidates[0] as string;
}

const LOG_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/**
 * The ids of every log file in the store, sorted — including logs whose header is damaged,
 * which `store.list()` skips (so `verify --all` reports them and a prefix finds them).
 */
export async function sessionIdsOnDisk(store: SessionStore): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(store.sessionsDir);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
  return names
    .map((name) => LOG_FILE.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .sort();
}

/** Splits `ID[@SEQ]`. */
export function parseForkSpec(text: string): { id: string; seq?: number } {
  const at = text.lastIndexOf("@");
  if (at === -1) return { id: text };
  const seqText = text.slice(at + 1);
  const seq = Number(seqText);
  if (!/^\d+$/.test(seqText) || !Number.isSafeInteger(seq)) {
    throw new TapedeckError(
      "INVALID_ARGUMENT",
      `--fork ${text}: the part after @ must be a seq number.`,
    );
  }
  return { id: text.slice(0, at), seq };
}
