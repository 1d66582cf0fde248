/**
 * Writing one converted session into the store: create it, append what is new, or fork where the
 * source was rewritten. Idempotent and safe with a concurrent import of the same source (the
 * store's exclusive create and writer lock decide; the loser re-reads and finds nothing to do).
 */
import { SessionBusyError, type SessionEvent, TapedeckError } from "@tapedeck/session";
import {
  LineEncoder,
  type SessionOrigin,
  type SessionStore,
  type SessionWriter,
} from "@tapedeck/session-store";
import {
  canonical,
  contentPrefix,
  leadingMatches,
  sameButIds,
  withParentEvents,
} from "./fork-prefix";
import { importedSessionId } from "./ids";
import type { ConvertedSession, SourceKey, TimedDraft } from "./types";

/** What happened to one source session. */
export type SessionAction = "created" | "appended" | "forked" | "unchanged";

/** The outcome of writing one converted session. */
export interface SessionOutcome {
  key: SourceKey;
  /** The Tapedeck session that now holds the source's conversation (a fork after a rewrite). */
  sessionId: string;
  action: SessionAction;
  /** Events written (or, in a dry run, that would be). */
  newEvents: number;
  /** Set when `action` is `forked`: the session and seq the new session branches from. */
  forkedFrom?: { sessionId: string; seq: number };
}

/** Options of {@link writeConverted}. */
export interface WriteOptions {
  /** Compute the outcome without writing anything. */
  dryRun?: boolean;
  /** How long to wait for a session another process is writing; default 10 s. */
  busyTimeoutMs?: number;
  /**
   * Create new logs without waiting for `fsync`; the caller flushes them with
   * `store.syncLogs` (importSessions does, in batches). Default `false`.
   */
  deferSync?: boolean;
  /**
   * The workspace id of a new session started in `cwd`; default the store's rule
   * (`defaultWorkspaceId`). An import passes one that remembers each cwd's answer for the run
   * (finding it costs a `realpath` and a walk up the folders looking for `.git`).
   */
  workspaceIdOf?: (cwd: string) => string;
}

const MAX_ATTEMPTS = 20;

/**
 * Writes `converted` into `store`. The Tapedeck id is derived from the source (see
 * `importedSessionId`); generation `n` is the n-th fork made because the source was rewritten,
 * and the newest generation is the one compared against.
 *
 * - no session yet: created with every event (a fork by reference of `forkOf`'s session at the
 *   last turn boundary they share, when that session exists);
 * - the source's events are all in the session (it may have been continued here): unchanged;
 * - the session's events are a prefix of the source's: the rest is appended;
 * - they differ (the source was rewritten, or it grew after the session was continued here): a fork of the
 *   newest generation at the last turn boundary before the difference, holding the source's
 *   events from there. Nothing is ever overwritten.
 */
export async function writeConverted(
  store: SessionStore,
  converted: ConvertedSession,
  options: WriteOptions = {},
): Promise<SessionOutcome> {
  const deadline = Date.now() + (options.busyTimeoutMs ?? 10_000);
  if (options.dryRun !== true) {
    // Before any line names them (a deferred import's: fsynced by syncLogs before its logs).
    for (const { data, mediaType } of converted.blobs?.values() ?? []) {
      store.putBlob(data, { mediaType, durable: options.deferSync !== true });
    }
  }
  const input = await withParentPrefix(store, converted);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writeOnce(store, input, options);
    } catch (error) {
      const retry =
        SessionBusyError.isInstance(error) ||
        (TapedeckError.isInstance(error) && error.code === "SESSION_EXISTS");
      if (!retry || attempt >= MAX_ATTEMPTS || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}

async function writeOnce(
  store: SessionStore,
  converted: ConvertedSession,
  options: WriteOptions,
): Promise<SessionOutcome> {
  const dryRun = options.dryRun === true;
  const latest = await latestGeneration(store, converted.key, converted.createdAt);
  if (latest === undefined) return createNew(store, converted, options);
  const { key, events } = converted;
  // Compare without the lock first: re-importing an unchanged source takes no lock, no fsync.
  const text = compareAsText(store, latest.sessionId, events);
  if (text?.found === "unchanged") {
    return { key, sessionId: latest.sessionId, action: "unchanged", newEvents: 0 };
  }
  if (text?.found === "grown") {
    // The log is a prefix of the source: append the rest without replaying the log here. Under
    // the lock, the writer's replay must end where the text compare did (a log only grows, under
    // that lock); if another import appended meanwhile, events are compared instead.
    const rest = events.slice(text.logEvents);
    if (dryRun) {
      return { key, sessionId: latest.sessionId, action: "appended", newEvents: rest.length };
    }
    const writer = await store.openWriter(latest.sessionId);
    try {
      if (writer.lastSeq !== text.logEvents) {
        return await reconcileUnderLock(store, converted, latest, writer);
      }
      await writer.append(rest, { keepTimestamps: true });
      return { key, sessionId: latest.sessionId, action: "appended", newEvents: rest.length };
    } finally {
      await writer.close();
    }
  }
  const existing = (await store.readSession(latest.sessionId)).events;
  const outcome = await reconcile(store, converted, latest, existing, undefined);
  if (dryRun || outcome.action === "unchanged") return outcome;
  const writer = await store.openWriter(latest.sessionId);
  try {
    return await reconcileUnderLock(store, converted, latest, writer);
  } finally {
    await writer.close();
  }
}

/** Compares again under the lock (another import may have appended meanwhile) and writes. */
function reconcileUnderLock(
  store: SessionStore,
  converted: ConvertedSession,
  latest: { sessionId: string; generation: number },
  writer: SessionWriter,
): Promise<SessionOutcome> {
  return reconcile(store, converted, latest, writer.session.events, async (drafts) => {
    await writer.append(drafts, { keepTimestamps: true });
  });
}

async function reconcile(
  store: SessionStore,
  converted: ConvertedSession,
  latest: { sessionId: string; generation: number },
  existing: readonly SessionEvent[],
  append: ((drafts: TimedDraft[]) => Promise<void>) | undefined,
): Promise<SessionOutcome> {
  const { key, events } = converted;
  const common = commonPrefix(existing, events, converted.idsMayBeAdded);
  if (common === events.length) {
    // Nothing new in the source (the session may have been continued here since).
    return { key, sessionId: latest.sessionId, action: "unchanged", newEvents: 0 };
  }
  if (common === existing.length) {
    const rest = events.slice(common);
    if (rest.length > 0 && append !== undefined) await append(rest);
    return {
      key,
      sessionId: latest.sessionId,
      action: rest.length === 0 ? "unchanged" : "appended",
      newEvents: rest.length,
    };
  }
  // The source no longer starts with what was imported: fork, never rewrite.
  const atSeq = turnBoundary(events, common);
  const sessionId = importedSessionId(key, converted.createdAt, latest.generation + 1);
  const rest = events.slice(atSeq);
  if (append !== undefined) {
    await forkAndAppend(store, converted, latest.sessionId, atSeq, sessionId, rest);
  }
  return {
    key,
    sessionId,
    action: "forked",
    newEvents: rest.length,
    forkedFrom: { sessionId: latest.sessionId, seq: atSeq },
  };
}

async function createNew(
  store: SessionStore,
  converted: ConvertedSession,
  options: WriteOptions,
): Promise<SessionOutcome> {
  const dryRun = options.dryRun === true;
  const { key, events } = converted;
  const sessionId = importedSessionId(key, converted.createdAt);
  const parent =
    converted.forkOf === undefined
      ? undefined
      : await latestGeneration(store, converted.forkOf, undefined);
  if (parent !== undefined) {
    const parentEvents = (await store.readSession(parent.sessionId)).events;
    const atSeq = turnBoundary(events, commonPrefix(parentEvents, events, converted.idsMayBeAdded));
    if (atSeq > 0) {
      const rest = events.slice(atSeq);
      if (!dryRun) await forkAndAppend(store, converted, parent.sessionId, atSeq, sessionId, rest);
      return {
        key,
        sessionId,
        action: "created",
        newEvents: rest.length,
        forkedFrom: { sessionId: parent.sessionId, seq: atSeq },
      };
    }
  }
  if (!dryRun) {
    await store.create({
      cwd: converted.cwd,
      ...(options.workspaceIdOf === undefined
        ? {}
        : { workspaceId: options.workspaceIdOf(converted.cwd) }),
      sessionId,
      createdAt: converted.createdAt,
      origin: originOf(converted),
      ...(converted.spawnedBy === undefined ? {} : { spawnedBy: converted.spawnedBy }),
      seed: events,
      keepTimestamps: true,
      durable: options.deferSync !== true,
    });
  }
  return { key, sessionId, action: "created", newEvents: events.length };
}

async function forkAndAppend(
  store: SessionStore,
  converted: ConvertedSession,
  parentId: string,
  atSeq: number,
  sessionId: string,
  rest: TimedDraft[],
): Promise<void> {
  await store.fork(parentId, {
    atSeq,
    cwd: converted.cwd,
    sessionId,
    createdAt: converted.createdAt,
    origin: originOf(converted),
    ...(converted.spawnedBy === undefined ? {} : { spawnedBy: converted.spawnedBy }),
  });
  // A crash between the fork and this append leaves a prefix; the next import appends the rest.
  if (rest.length > 0) await store.append(sessionId, rest, { keepTimestamps: true });
}

function originOf(converted: ConvertedSession): SessionOrigin {
  return {
    ...converted.originFields,
    tool: converted.key.tool,
    sessionId: converted.key.sessionId,
    path: converted.path,
    ...(converted.parentOf === undefined ? {} : { parentSessionId: converted.parentOf.sessionId }),
  };
}

/**
 * A session whose fork is found by content (`forkMatch: "content"`, Codex): its leading turns that
 * say what its parent's say take the parent's events, so it is written as a fork by reference of
 * the parent there, and a re-import takes those of the session its log forks and compares equal.
 * Not when the parent is not imported, nor when the session was imported before its parent (it
 * stays the session it was).
 */
async function withParentPrefix(
  store: SessionStore,
  converted: ConvertedSession,
): Promise<ConvertedSession> {
  if (converted.forkMatch !== "content" || converted.forkOf === undefined) return converted;
  const own = await latestGeneration(store, converted.key, converted.createdAt);
  // Imported already: the session it forks holds the prefix it was written with, up to the
  // fork's seq (past it, the parent may have grown turns that say what the fork's own do).
  const parent: { sessionId: string; seq?: number } | undefined =
    own === undefined
      ? await latestGeneration(store, converted.forkOf, undefined)
      : (await store.readHeader(own.sessionId)).parent;
  if (parent === undefined) return converted;
  const { events } = await store.readSession(parent.sessionId);
  const atSeq = parent.seq;
  const parentEvents = atSeq === undefined ? events : events.filter((event) => event.seq <= atSeq);
  const count = turnBoundary(converted.events, contentPrefix(parentEvents, converted.events));
  if (count === 0) return converted;
  return { ...converted, events: withParentEvents(parentEvents, converted.events, count) };
}

/**
 * The newest existing generation of a source session. With `createdAt` unknown (looking up a
 * `forkOf` session), the store's listing is searched by `origin` instead.
 */
async function latestGeneration(
  store: SessionStore,
  key: SourceKey,
  createdAt: string | undefined,
): Promise<{ sessionId: string; generation: number } | undefined> {
  if (createdAt === undefined) {
    const found = (await store.list()).find((listing) => {
      const origin = (listing.header as { origin?: { tool?: string; sessionId?: string } }).origin;
      return origin?.tool === key.tool && origin.sessionId === key.sessionId;
    });
    if (found === undefined) return undefined;
    return latestGeneration(store, key, found.header.createdAt);
  }
  let latest: { sessionId: string; generation: number } | undefined;
  for (let generation = 0; ; generation += 1) {
    const sessionId = importedSessionId(key, createdAt, generation);
    if (!exists(store, sessionId)) return latest;
    latest = { sessionId, generation };
  }
}

/**
 * True when the store has a log for `sessionId`. Synchronous, and one `access` for a new session
 * (no failed `open` whose error is built and thrown): an import asks this for every source
 * session, and an `await`ed open per session cost more wall-clock time than converting it on a
 * busy machine.
 */
function exists(store: SessionStore, sessionId: string): boolean {
  return store.hasLog(sessionId);
}

/** What the text compare found: nothing new, the source grew past the log's events, or neither. */
type TextCompare =
  | { found: "unchanged" }
  | { found: "grown"; logEvents: number }
  | { found: "differs" };

/**
 * The fast answer for a re-import: compares the log's event lines with exactly the lines the store
 * would write for `drafts` (`{seq, ts, …draft}`), parsing nothing. All drafts found (the log may
 * have more: continued here): unchanged; every log line matched and drafts remain: grown.
 * `undefined` when text cannot answer (a fork, whose prefix lives in its parent; no log); then,
 * as for "differs", the caller compares replayed events, so a text difference alone never decides
 * a write.
 */
function compareAsText(
  store: SessionStore,
  sessionId: string,
  drafts: readonly TimedDraft[],
): TextCompare | undefined {
  const entry = store.entry(sessionId);
  if (entry?.header === undefined || entry.header.parent !== undefined) return undefined;
  const reader = store.openLogReader(sessionId);
  if (reader === null) return undefined;
  let bytes: Buffer | null;
  try {
    bytes = reader.readAt(entry.headerEnd, entry.size - entry.headerEnd);
  } finally {
    reader.close();
  }
  if (bytes === null) return undefined;
  let start = 0;
  for (let index = 0; ; index += 1) {
    const end = bytes.indexOf(10, start);
    // A line without its newline is being written (or torn): not an event yet.
    if (end === -1) {
      return index === drafts.length
        ? { found: "unchanged" }
        : { found: "grown", logEvents: index };
    }
    const draft = drafts[index];
    if (draft === undefined) return { found: "unchanged" };
    // The bytes the store's encoder writes, key order included: seq and ts, then the draft's.
    compareLine.reset();
    compareLine.json(Object.assign({ seq: index + 1, ts: draft.ts }, draft));
    if (!compareLine.bytes().equals(bytes.subarray(start, end + 1))) return { found: "differs" };
    start = end + 1;
  }
}

/** The line a draft would be written as, for {@link compareAsText} (one at a time, synchronous). */
const compareLine = new LineEncoder();

/**
 * How many leading events of the session equal the converted drafts (seq aside; with
 * `idsMayBeAdded`, entry and run ids aside too, see `ConvertedSession.idsMayBeAdded`).
 */
export function commonPrefix(
  existing: readonly SessionEvent[],
  drafts: readonly TimedDraft[],
  idsMayBeAdded?: boolean,
): number {
  return leadingMatches(
    existing,
    drafts,
    idsMayBeAdded === true
      ? (event, draft) => sameEvent(event, draft) || sameButIds(event, draft)
      : sameEvent,
  );
}

/**
 * True when the event is the draft. Fast path: the store writes `{seq, ts, …draft}`, so with `seq`
 * dropped and `ts` first the two serialise identically; other key orders fall back to a sorted
 * comparison.
 */
function sameEvent(event: SessionEvent, draft: TimedDraft): boolean {
  const { seq: _seq, ...stored } = event;
  const { ts, ...rest } = draft;
  if (JSON.stringify(stored) === JSON.stringify({ ts, ...rest })) return true;
  if (canonical(stored) === canonical(draft)) return true;
  if (stored.type === "turn/start" && draft.type === "turn/start")
    return sameButModel(stored, draft);
  return sameButAttachments(stored, draft);
}

/**
 * True when the draft is the stored event plus `attachments`: imports made before 2 Dec 2026
 * dropped inline images (the text says `[image]`); the session imported then stays as it is
 * rather than being forked for the images.
 */
function sameButAttachments(stored: object, draft: TimedDraft): boolean {
  if (!("attachments" in draft) || "attachments" in stored) return false;
  const { attachments: _attachments, ...rest } = draft as TimedDraft & { attachments?: unknown };
  return canonical(stored) === canonical(rest);
}

/**
 * True when two `turn/start`s differ at most in `model`. Imports made before 2 Dec 2026 wrote a
 * turn's model from its reply, read after the prompt; now a turn carries the model known when it
 * began (a `turn/start` written earlier is never changed). Such a log is still the same session:
 * a grown source appends to it instead of forking it.
 */
function sameButModel(event: object, draft: object): boolean {
  const { model: _eventModel, seq: _seq, ...a } = event as Record<string, unknown>;
  const { model: _draftModel, ...b } = draft as Record<string, unknown>;
  return canonical(a) === canonical(b);
}

/** The largest count ≤ `limit` of leading events after which no turn is open. */
export function turnBoundary(events: readonly TimedDraft[], limit: number): number {
  let open = false;
  let boundary = 0;
  for (let index = 0; index < limit; index += 1) {
    const type = events[index]!.type;
    if (type === "turn/start") open = true;
    else if (type === "turn/end") open = false;
    if (!open) boundary = index + 1;
  }
  return boundary;
}
