/**
 * Composing a new log: its header and first lines for `create`, `fork` and `adoptLog`, recorded in
 * the change journal and written all or nothing. The store (`file-store.ts`) checks what must
 * exist first (a fork's parent) and hands it over; nothing here reads the folder.
 */
import { resolve } from "node:path";
import {
  appendParentPrefix,
  assertSessionId,
  LOG_FORMAT_VERSION,
  normalize,
  parseHeaderLine,
  replayLogText,
  Session,
  type SessionEvent,
  type SessionHeader,
  TapedeckError,
  uuidv7,
} from "@tapedeck/session";
import type { ChangeJournal } from "./change-journal";
import { InvalidForkPointError } from "./errors";
import { encodeLines } from "./fs-util";
import { scratchEncoder } from "./line-encoder";
import type { NewLogs } from "./new-logs";
import type { ImportedHeaderOptions, SessionStore } from "./session-store";
import { defaultWorkspaceId } from "./workspace";
import { applyDrafts, type PayloadSink, type PendingBlobs } from "./writer";

/** What composing a new log takes from its store. */
export interface LogCreation {
  /** The agent written into new headers. */
  agent: { name: string; version: string };
  now: () => Date;
  journal: ChangeJournal;
  newLogs: NewLogs;
  /** Where large payloads of seeds and imports go. */
  payloads?: PayloadSink;
}

/** The options of `SessionStore.create`. */
export type CreateOptions = Parameters<SessionStore["create"]>[0];

/** A log just created: its id, its header and the events written after it. */
export interface CreatedLog {
  sessionId: string;
  header: SessionHeader;
  events: SessionEvent[];
}

/** See `SessionStore.create`. */
export function createLog(creation: LogCreation, options: CreateOptions): CreatedLog {
  if (typeof options.cwd !== "string" || options.cwd === "") {
    throw new TapedeckError("INVALID_OPTIONS", "create() needs the cwd of the session");
  }
  const cwd = resolve(options.cwd);
  const sessionId = assertSessionId(options.sessionId ?? uuidv7(creation.now().getTime()));
  const workspaceId = options.workspaceId ?? defaultWorkspaceId(cwd);
  const header = newHeader(creation, { sessionId, workspaceId, cwd }, options);
  const session = Session.create(sessionId, [], header);
  // Encoded and written with no await between: the thread's scratch buffer holds the log.
  const lines = scratchEncoder();
  lines.text(JSON.stringify(header));
  const pending: PendingBlobs = new Map();
  const events = applyDrafts(
    session,
    options.seed ?? [],
    creation.now,
    lines,
    options,
    creation.payloads,
    pending,
  );
  // Before the log: a durable log's blobs are fsynced now, an import's by syncLogs before its logs.
  for (const [hash, bytes] of pending) {
    creation.payloads?.blobs.put(bytes, hash, { durable: options.durable !== false });
  }
  creation.journal.record("n", sessionId);
  creation.newLogs.write(sessionId, lines.bytes(), options.durable !== false);
  return { sessionId, header, events };
}

/**
 * See `SessionStore.fork`: `parent` is the session `parentId` names, as its log replays now.
 *
 * @throws InvalidForkPointError for an `atSeq` the parent does not have.
 */
export function forkLog(
  creation: LogCreation,
  parentId: string,
  parent: Session,
  options: { atSeq?: number; cwd?: string } & ImportedHeaderOptions,
): CreatedLog {
  const atSeq = options.atSeq ?? parent.lastSeq;
  if (!Number.isSafeInteger(atSeq) || atSeq < 0 || atSeq > parent.lastSeq) {
    throw new InvalidForkPointError(
      `cannot fork session ${parentId} at seq ${atSeq}: it must be a whole number from 0 to ${parent.lastSeq} (the session's last seq)`,
    );
  }
  const childId = assertSessionId(options.sessionId ?? uuidv7(creation.now().getTime()));
  const header = newHeader(
    creation,
    {
      sessionId: childId,
      workspaceId: parent.header.workspaceId,
      cwd: options.cwd === undefined ? parent.header.cwd : resolve(options.cwd),
      parent: { sessionId: parentId, seq: atSeq },
    },
    options,
  );
  const child = Session.create(childId, [], header);
  appendParentPrefix(child, parent.events);
  const lines = scratchEncoder();
  lines.text(JSON.stringify(header));
  // A fork taken inside an open turn starts by closing it, as a resume would.
  const events = applyDrafts(child, normalize(child), creation.now, lines);
  creation.journal.record("n", childId);
  creation.newLogs.write(childId, lines.bytes());
  return { sessionId: childId, header, events };
}

/**
 * See `SessionStore.adoptLog`. `readParent` reads the session a forked log names (it must exist):
 * the log is replayed against its events before anything is written.
 */
export async function adoptLog(
  creation: LogCreation,
  text: string,
  options: { workspaceId?: string },
  readParent: (sessionId: string) => Promise<Session>,
): Promise<{ sessionId: string; header: SessionHeader }> {
  const newline = text.indexOf("\n");
  const recorded = parseHeaderLine(newline === -1 ? text : text.slice(0, newline));
  const header: SessionHeader = {
    ...recorded,
    ...(options.workspaceId === undefined ? {} : { workspaceId: options.workspaceId }),
  };
  const lines = (newline === -1 ? "" : text.slice(newline + 1))
    .split("\n")
    .filter((line) => line !== "");
  const parent = header.parent;
  const parentEvents =
    parent === undefined
      ? undefined
      : (await readParent(parent.sessionId)).events.filter((event) => event.seq <= parent.seq);
  // The same replay a read does: a log that would be refused later is refused now.
  replayLogText(
    `${[JSON.stringify(header), ...lines].join("\n")}\n`,
    parentEvents === undefined ? {} : { parentEvents },
  );
  creation.journal.record("n", header.sessionId);
  creation.newLogs.write(header.sessionId, encodeLines([JSON.stringify(header), ...lines]));
  return { sessionId: header.sessionId, header };
}

/** The header of a new log (key order as written: a fork's `parent` after `cwd`). */
function newHeader(
  creation: LogCreation,
  fields: {
    sessionId: string;
    workspaceId: string;
    cwd: string;
    parent?: { sessionId: string; seq: number };
  },
  options: ImportedHeaderOptions,
): SessionHeader {
  return {
    type: "session",
    version: LOG_FORMAT_VERSION,
    sessionId: fields.sessionId,
    workspaceId: fields.workspaceId,
    createdAt: createdAtOf(options.createdAt, creation.now),
    cwd: fields.cwd,
    ...(fields.parent === undefined ? {} : { parent: fields.parent }),
    agent: { ...creation.agent },
    ...(options.origin === undefined ? {} : { origin: { ...options.origin } }),
    ...(options.spawnedBy === undefined
      ? {}
      : {
          spawnedBy: {
            sessionId: options.spawnedBy.sessionId,
            seq: options.spawnedBy.seq,
            callId: options.spawnedBy.callId,
          },
        }),
  };
}

/** A given creation time as ISO-8601 UTC, else now. */
function createdAtOf(given: string | undefined, now: () => Date): string {
  if (given === undefined) return now().toISOString();
  const time = Date.parse(given);
  if (!Number.isFinite(time)) {
    throw new TapedeckError("INVALID_OPTIONS", `createdAt is not a time: ${JSON.stringify(given)}`);
  }
  return new Date(time).toISOString();
}
