import {
  appendParentPrefix,
  EventLogCorruptError,
  parseEventLine,
  parseHeaderLine,
  Session,
  type SessionEvent,
  type SessionHeader,
  SessionNotFoundError,
} from "@tapedeck/session";
import { hasBlobRef, resolveBlobs } from "./blob-payloads";
import { type BlobStore, blobsBesideLog } from "./blob-store";
import type { LogHandle } from "./cold-log";
import { isTornTail, type LogLine, scanLines, type TornTail } from "./line-reader";
import { openLogFile } from "./log-not-a-file";
import { unfinishedBlobError, unfinishedBlobWrite } from "./unfinished-blob-write";

/** Maps a validated session id to its log path. */
export type PathOf = (sessionId: string) => string;

/**
 * Opens a log for reading; an absent file is `SessionNotFoundError`, a directory, FIFO, device or
 * symbolic link is `LogNotAFileError` (never followed, never waited on).
 */
export const openLog = openLogFile;

/** Adds the session id to an error from a line parser. */
export function located(error: unknown, sessionId: string): unknown {
  return EventLogCorruptError.isInstance(error) ? error.withLocation({ sessionId }) : error;
}

/** Parses line 1 and checks that the header belongs to `sessionId`. */
export function parseHeaderOf(line: LogLine, sessionId: string): SessionHeader {
  let header: SessionHeader;
  try {
    header = parseHeaderLine(line.text, { line: line.line, offset: line.offset });
  } catch (error) {
    throw located(error, sessionId);
  }
  if (header.sessionId !== sessionId) {
    throw new EventLogCorruptError(
      "BAD_HEADER",
      `header names session ${header.sessionId}, but the file belongs to session ${sessionId}`,
      { line: 1, offset: 0, sessionId },
    );
  }
  return header;
}

/** Parses one event line, naming the session in errors. */
export function parseEventOf(line: LogLine, sessionId: string, blobs?: BlobStore): SessionEvent {
  try {
    const location = { line: line.line, offset: line.offset };
    const event = parseEventLine(line.text, location);
    if (blobs === undefined || !hasBlobRef(event)) return event;
    return resolveBlobs(event, blobs, { ...location, sessionId });
  } catch (error) {
    throw located(error, sessionId);
  }
}

/** The error for final bytes without "\n". */
export function tornTailError(tail: TornTail, sessionId: string): EventLogCorruptError {
  return new EventLogCorruptError(
    "TORN_TAIL",
    `the last line has no newline: ${tail.bytes} bytes of an unfinished write (run repair to move them aside)`,
    { line: tail.line, offset: tail.offset, sessionId },
  );
}

/** The error for a log without a whole header line. */
export function incompleteHeader(sessionId: string, empty: boolean): EventLogCorruptError {
  return new EventLogCorruptError(
    "BAD_HEADER",
    empty ? "the log is empty (no header line)" : "the header line is incomplete (no newline)",
    { line: 1, offset: 0, sessionId },
  );
}

/** The header line of a log, validated, and where the first event starts. */
export async function readHeaderLine(
  path: string,
  sessionId: string,
): Promise<{ header: SessionHeader; end: number; size: number }> {
  const handle = await openLog(path, sessionId);
  try {
    return await readHeaderOf(handle, sessionId);
  } finally {
    await handle.close();
  }
}

/** {@link readHeaderLine} on a file that is already open (one open per read, not two). */
export async function readHeaderOf(
  handle: LogHandle,
  sessionId: string,
): Promise<{ header: SessionHeader; end: number; size: number }> {
  const size = (await handle.stat()).size;
  for await (const batch of scanLines(handle, { limit: size, chunkSize: 1 << 14 })) {
    if (isTornTail(batch)) break;
    const first = batch[0]!;
    return { header: parseHeaderOf(first, sessionId), end: first.end, size };
  }
  throw incompleteHeader(sessionId, size === 0);
}

/** Options of {@link replayLog}. */
export interface ReplayLogOptions {
  /** Stop once this seq is replayed (a fork reading its parent's prefix). */
  untilSeq?: number;
  /** Report a torn tail instead of throwing (`repair` and `resumeSession`). */
  allowTornTail?: boolean;
  /** Sessions already on the fork chain, to refuse a cycle. */
  chain?: readonly string[];
  /** Read no further than this byte offset (a line end): the log as a writer found it. */
  limit?: number;
}

/** A replayed log. */
export interface ReplayedLog {
  session: Session;
  /** Byte offset just past the last whole line read. */
  end: number;
  tornTail?: TornTail;
}

/**
 * Replays a log from its file: header, then (for a fork) the parent's prefix read recursively
 * from the parent's own file, then every event, each validated by `Session.append`. Errors name
 * the session, line and byte offset. A line whose blob a crash cut short, with no acknowledged
 * write after it, is a torn tail from that line on (`unfinished-blob-write.ts`).
 */
export async function replayLog(
  pathOf: PathOf,
  sessionId: string,
  options: ReplayLogOptions = {},
): Promise<ReplayedLog> {
  const path = pathOf(sessionId);
  const handle = await openLog(path, sessionId);
  const blobs = blobsBesideLog(path);
  try {
    const stat = (await handle.stat()).size;
    const size = options.limit === undefined ? stat : Math.min(stat, options.limit);
    let session: Session | undefined;
    let end = 0;
    for await (const batch of scanLines(handle, { limit: size })) {
      if (isTornTail(batch)) {
        if (session === undefined) throw incompleteHeader(sessionId, false);
        if (options.allowTornTail) return { session, end, tornTail: batch };
        throw tornTailError(batch, sessionId);
      }
      for (const line of batch) {
        if (session === undefined) {
          const header = parseHeaderOf(line, sessionId);
          session = Session.create(sessionId, [], header);
          await appendPrefix(pathOf, session, options.chain ?? []);
        } else {
          let event: SessionEvent;
          try {
            event = parseEventOf(line, sessionId, blobs);
          } catch (error) {
            const unfinished = await unfinishedBlobWrite(
              error,
              session.turnCount > 0,
              handle,
              line,
              size,
            );
            if (unfinished === undefined) throw error;
            if (options.allowTornTail) return { session, end, tornTail: unfinished };
            throw unfinishedBlobError(unfinished, error as EventLogCorruptError, sessionId);
          }
          session.append(event, { line: line.line, offset: line.offset });
        }
        end = line.end;
        if (options.untilSeq !== undefined && session.lastSeq >= options.untilSeq) {
          return { session, end };
        }
      }
    }
    if (session === undefined) throw incompleteHeader(sessionId, true);
    return { session, end };
  } finally {
    await handle.close();
  }
}

async function appendPrefix(pathOf: PathOf, session: Session, chain: readonly string[]) {
  const parent = session.header.parent;
  if (parent === undefined) return;
  const nextChain = forkChain(session, chain);
  let parentSession: Session;
  try {
    parentSession = (
      await replayLog(pathOf, parent.sessionId, { untilSeq: parent.seq, chain: nextChain })
    ).session;
  } catch (error) {
    throw missingParent(error, session);
  }
  appendParentPrefix(session, parentSession.events);
}

/** The fork chain with `session` added; a parent already on it is a loop (`BAD_HEADER`). */
export function forkChain(session: Session, chain: readonly string[]): string[] {
  const parentId = session.header.parent?.sessionId;
  const nextChain = [...chain, session.sessionId];
  if (parentId !== undefined && nextChain.includes(parentId)) {
    throw new EventLogCorruptError("BAD_HEADER", `fork chain loops back to session ${parentId}`, {
      line: 1,
      offset: 0,
      sessionId: session.sessionId,
    });
  }
  return nextChain;
}

/** A fork's parent not found becomes `BAD_HEADER` of the fork; other errors stay as they are. */
export function missingParent(error: unknown, session: Session): unknown {
  const parentId = session.header.parent?.sessionId;
  if (SessionNotFoundError.isInstance(error) && error.sessionId === parentId) {
    return new EventLogCorruptError(
      "BAD_HEADER",
      `session is a fork of ${parentId}, which does not exist`,
      { line: 1, offset: 0, sessionId: session.sessionId, cause: error },
    );
  }
  return error;
}
