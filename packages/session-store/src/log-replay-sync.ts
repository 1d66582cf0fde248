/**
 * A log replayed synchronously, from bytes in memory: what a writer that continued from its kept
 * tail (`kept-tail.ts`) reads when its whole session is asked for after all (`writer.session` is a
 * getter). The same checks as `replayLog`: every line parsed and validated, every invariant, a
 * fork's parent prefix first (its own log, plain or cold), blob references resolved (a blob a
 * crash cut short, with no acknowledged write after it: `TORN_TAIL`, as there).
 */
import {
  appendParentPrefix,
  type EventLogCorruptError,
  Session,
  type SessionEvent,
} from "@tapedeck/session";
import { blobsBesideLog } from "./blob-store";
import {
  forkChain,
  incompleteHeader,
  missingParent,
  type PathOf,
  parseEventOf,
  parseHeaderOf,
  tornTailError,
} from "./log-file";
import { readLogFileSync } from "./log-not-a-file";
import { unfinishedBlobError, unfinishedBlobWriteSync } from "./unfinished-blob-write";

/** Options of {@link replayLogSync}. */
export interface ReplayLogSyncOptions {
  /** The log's bytes when the caller has them (a writer's own descriptor); default: read. */
  bytes?: Buffer;
  /** Stop once this seq is replayed (a fork reading its parent's prefix). */
  untilSeq?: number;
  /** Sessions already on the fork chain, to refuse a cycle. */
  chain?: readonly string[];
}

/**
 * Replays log `sessionId` from its bytes. Errors name the session, line and byte offset.
 *
 * @throws EventLogCorruptError (a final line without "\n" is `TORN_TAIL`), SessionNotFoundError
 */
export function replayLogSync(
  pathOf: PathOf,
  sessionId: string,
  options: ReplayLogSyncOptions = {},
): Session {
  const path = pathOf(sessionId);
  const bytes = options.bytes ?? readLogFileSync(path, sessionId);
  const blobs = blobsBesideLog(path);
  let session: Session | undefined;
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    line += 1;
    if (newline === -1) {
      if (session === undefined) throw incompleteHeader(sessionId, false);
      const tail = { torn: true as const, line, offset: start, bytes: bytes.length - start };
      throw tornTailError(tail, sessionId);
    }
    const logLine = { text: bytes.toString("utf8", start, newline), line, offset: start };
    const end = newline + 1;
    if (session === undefined) {
      session = Session.create(sessionId, [], parseHeaderOf({ ...logLine, end }, sessionId));
      appendPrefixSync(pathOf, session, options.chain ?? []);
    } else {
      let event: SessionEvent;
      try {
        event = parseEventOf({ ...logLine, end }, sessionId, blobs);
      } catch (error) {
        const unfinished = unfinishedBlobWriteSync(error, session.turnCount > 0, bytes, {
          ...logLine,
          end,
        });
        if (unfinished === undefined) throw error;
        throw unfinishedBlobError(unfinished, error as EventLogCorruptError, sessionId);
      }
      session.append(event, { line, offset: start });
    }
    start = end;
    if (options.untilSeq !== undefined && session.lastSeq >= options.untilSeq) return session;
  }
  if (session === undefined) throw incompleteHeader(sessionId, true);
  return session;
}

function appendPrefixSync(pathOf: PathOf, session: Session, chain: readonly string[]): void {
  const parent = session.header.parent;
  if (parent === undefined) return;
  const nextChain = forkChain(session, chain);
  let parentSession: Session;
  try {
    parentSession = replayLogSync(pathOf, parent.sessionId, {
      untilSeq: parent.seq,
      chain: nextChain,
    });
  } catch (error) {
    throw missingParent(error, session);
  }
  appendParentPrefix(session, parentSession.events);
}
