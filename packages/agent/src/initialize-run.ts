import {
  type ApprovalPolicy,
  EventLogCorruptError,
  type Session,
  type SessionEvent,
  type SessionEventDraft,
  type SurfaceItem,
  TapedeckError,
  uuidv7,
} from "@tapedeck/session";
import type { SessionStore, SessionWriter } from "@tapedeck/session-store";
import { repairInterruptedRun } from "./repair-run";
import { latestCheckpointId, RunCheckpoints, type WorkspaceCheckpointer } from "./run-checkpoints";
import { DEFAULT_SYSTEM_PROMPT } from "./system-prompt";

/** Options of {@link initializeRun}. */
export interface InitializeRunOptions {
  store: SessionStore;
  /** Resume this session. */
  sessionId?: string;
  /** Fork this session (at `seq`, default its last seq) and run in the child. */
  forkFrom?: { sessionId: string; seq?: number };
  /**
   * The user's message of this turn. Absent for a turn a slash command started (`/compact`): the
   * command is recorded as what it does, never as a message the model would see again.
   */
  input?: string;
  /** Workspace root of the run (written into a new session's header). */
  cwd: string;
  policy: ApprovalPolicy;
  /** Model id written into `turn/start` (`openai:gpt-4.1-mini`). */
  model: string;
  /** Seed of a new session; default one system message with {@link DEFAULT_SYSTEM_PROMPT}. */
  systemPrompt?: string;
  /**
   * Run id to use. Default: the session id for a session's first run (a new session or fork, or
   * one created ahead of its first turn), else a fresh UUIDv7.
   */
  runId?: string;
  /**
   * Records the workspace's files at the turn's start (on `turn/start`) and after each tool that
   * may change them. Absent: no checkpoints (`TAPEDECK_CHECKPOINTS=off`).
   */
  checkpointer?: WorkspaceCheckpointer;
}

/** A run ready for its first model call; the writer holds the session's lock. */
export interface InitializedRun {
  session: Session;
  /** What the model sees first: the surface after this run's first events (seed or replayed
   * history, repairs, the new user message). */
  history: SurfaceItem[];
  sessionId: string;
  runId: string;
  /**
   * True when the run continues earlier turns (resume or fork). A session created ahead of its
   * first turn (ACP `session/new`) counts as new.
   */
  resumed: boolean;
  /**
   * Exactly the events this run added before its first model call, already persisted: for a new
   * session the seed, `turn/start` and the user message; for a resume or fork the normalize
   * repairs (if any), `turn/start` and the user message.
   */
  newEventsToPersist: SessionEvent[];
  /** The open writer; `runTurn` closes it. Close it yourself if you do not run the turn. */
  writer: SessionWriter;
  /** The store's home: tools of the run never touch it (see `ToolContext.privateRoots`). */
  home?: string;
  /**
   * The run's system prompt (the seed of a new session). `runTurn` also sends it, as the
   * request's instructions, to a session whose history holds no system message: an imported
   * session begins with another tool's conversation, never with Tapedeck's prompt.
   */
  systemPrompt: string;
  /** The run's checkpoints (absent when checkpoints are off). */
  checkpoints?: RunCheckpoints;
}

/** True when the session's own events (after a fork's parent prefix) include a turn. */
function hasOwnTurn(session: Session): boolean {
  const prefix = session.header.parent?.seq ?? 0;
  for (let index = session.events.length - 1; index >= 0; index -= 1) {
    const event = session.events[index];
    if (event === undefined || event.seq <= prefix) return false;
    if (event.type === "turn/start") return true;
  }
  return false;
}

async function openWriterRepairingTail(
  store: SessionStore,
  sessionId: string,
): Promise<SessionWriter> {
  let writer: SessionWriter;
  try {
    writer = await store.openWriter(sessionId);
  } catch (error) {
    if (EventLogCorruptError.isInstance(error) && error.code === "TORN_TAIL") {
      // A crash mid-write leaves a torn last line; resume repairs it (never other damage).
      await store.repair(sessionId);
      writer = await store.openWriter(sessionId);
    } else {
      throw error;
    }
  }
  try {
    // The run needs the history: read now, without blocking the event loop (a writer opened
    // from the log's kept tail has not read the log).
    await writer.loadSession();
  } catch (error) {
    await writer.close();
    throw error;
  }
  return writer;
}

/**
 * Prepares a run as the table in `architecture/contract.md` ("Runs") says:
 *
 * | case | file | written |
 * |---|---|---|
 * | new | created with header + seed | header, seed, `turn/start`, user `message` |
 * | resume | reused, appended | normalize repairs + `turn/start` + user `message` only |
 * | resume of unknown id | none created | nothing; throws `SessionNotFoundError` |
 * | fork | new child file | child header + repairs + `turn/start` + user `message` |
 *
 * @throws SessionNotFoundError, InvalidSessionIdError, SessionBusyError, EventLogCorruptError
 */
export async function initializeRun(options: InitializeRunOptions): Promise<InitializedRun> {
  const { store } = options;
  if (options.sessionId !== undefined && options.forkFrom !== undefined) {
    throw new TapedeckError(
      "INVALID_RUN_OPTIONS",
      "initializeRun: give either sessionId (resume) or forkFrom (fork), not both.",
    );
  }
  const systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  let runId = options.runId ?? uuidv7();
  let sessionId: string;
  let resumed: boolean;
  const written: SessionEvent[] = [];
  if (options.sessionId !== undefined) {
    sessionId = options.sessionId;
    resumed = true;
  } else if (options.forkFrom !== undefined) {
    const fork = await store.fork(options.forkFrom.sessionId, {
      ...(options.forkFrom.seq === undefined ? {} : { atSeq: options.forkFrom.seq }),
      cwd: options.cwd,
    });
    sessionId = fork.sessionId;
    resumed = true;
    // A fork is a new session: its first run is named after it, as for every new session.
    runId = options.runId ?? sessionId;
  } else {
    // A new session's first run is named after the session (runId = sessionId).
    sessionId = uuidv7();
    runId = options.runId ?? sessionId;
    const created = await store.create({
      sessionId,
      cwd: options.cwd,
      seed: [
        {
          type: "message",
          runId,
          role: "system",
          content: systemPrompt,
        },
      ],
    });
    resumed = false;
    written.push(...created.events);
  }
  const writer = await openWriterRepairingTail(store, sessionId);
  // A session created ahead of its first turn (ACP `session/new`, `session/fork`, the viewer's
  // fork) has no run of its own yet: its first run is named after it too. One with no turn at
  // all (not a fork) has no history to resume either.
  if (options.sessionId !== undefined && !hasOwnTurn(writer.session)) {
    if (writer.session.turnCount === 0) resumed = false;
    runId = options.runId ?? sessionId;
  }
  let checkpoints: RunCheckpoints | undefined;
  try {
    // Repairs end a crashed run's still-running tool processes before they are logged.
    const drafts: SessionEventDraft[] = resumed ? await repairInterruptedRun(writer.session) : [];
    if (options.checkpointer !== undefined) {
      const previous = latestCheckpointId(writer.session.events);
      checkpoints = new RunCheckpoints(options.checkpointer, sessionId, previous);
    }
    const checkpoint = await checkpoints?.take();
    drafts.push({
      type: "turn/start",
      runId,
      policy: options.policy,
      model: options.model,
      resumed,
      ...(checkpoint === undefined ? {} : { checkpoint }),
    });
    if (options.input !== undefined) {
      drafts.push({ type: "message", runId, role: "user", content: options.input });
    }
    written.push(...(await writer.append(drafts)));
  } catch (error) {
    await writer.close();
    await checkpoints?.close();
    throw error;
  }
  return {
    session: writer.session,
    history: writer.session.history(),
    sessionId,
    runId,
    resumed,
    newEventsToPersist: written,
    writer,
    home: store.home,
    systemPrompt,
    ...(checkpoints === undefined ? {} : { checkpoints }),
  };
}
