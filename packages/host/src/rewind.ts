import { existsSync } from "node:fs";
import {
  applyRestore,
  type CheckpointStore,
  checkpointAt,
  type LoggedCheckpoint,
  lastRewind,
  loggedCheckpoints,
  openCheckpointStore,
  planRestore,
  readRewinds,
} from "@tapedeck/checkpoints";
import { type SessionEvent, TapedeckError } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import { SessionCwdMissingError, UndoMovedError } from "./errors";

const handEditsMarker = "tapedeck.error.HandEditsError";
const handEditsSymbol = Symbol.for(handEditsMarker);

/**
 * A rewind would overwrite files someone changed since the agent last touched them, and nobody
 * agreed (not a terminal, or the person said no). Nothing was changed.
 */
export class HandEditsError extends TapedeckError {
  readonly [handEditsSymbol] = true;
  readonly paths: string[];

  constructor(paths: string[], how: string) {
    const shown = paths.slice(0, 10).join(", ") + (paths.length > 10 ? ", …" : "");
    super(
      "HAND_EDITS",
      `${paths.length} file${paths.length === 1 ? "" : "s"} changed since the agent last touched ${paths.length === 1 ? "it" : "them"}: ${shown}. ${how}`,
    );
    this.name = "HandEditsError";
    this.paths = paths;
  }

  static override isInstance(error: unknown): error is HandEditsError {
    return TapedeckError.hasMarker(error, handEditsMarker);
  }
}

/** One checkpoint of a session with what the log says about it. */
export interface SessionCheckpoint extends LoggedCheckpoint {
  /** The tool whose output carries it (function_call_output only). */
  toolName?: string;
  ts: string;
}

/** A session's checkpoints, in log order (a fork's include its parent's before the fork). */
export async function listSessionCheckpoints(
  store: SessionStore,
  sessionId: string,
): Promise<{ sessionId: string; cwd: string; checkpoints: SessionCheckpoint[] }> {
  const session = await store.readSession(sessionId);
  return {
    sessionId,
    cwd: session.header.cwd,
    checkpoints: describeCheckpoints(session.events),
  };
}

/** {@link loggedCheckpoints} with each one's tool name and time. */
export function describeCheckpoints(events: readonly SessionEvent[]): SessionCheckpoint[] {
  const names = new Map<string, string>();
  const times = new Map<number, string>();
  for (const event of events) {
    if (event.type === "function_call") names.set(event.callId, event.name);
    times.set(event.seq, event.ts);
  }
  return loggedCheckpoints(events).map((entry) => {
    const toolName = entry.callId === undefined ? undefined : names.get(entry.callId);
    return {
      ...entry,
      ts: times.get(entry.seq) ?? "",
      ...(toolName === undefined ? {} : { toolName }),
    };
  });
}

/** Options of {@link rewindSession}. */
export interface RewindOptions {
  sessionId: string;
  /** Rewind to the files as they were when this event was written (default: the last). */
  seq?: number;
  /** Restore files without forking the conversation. */
  filesOnly?: boolean;
  /** List what would change; change nothing. */
  dryRun?: boolean;
  /** Overwrite hand edits without asking. */
  force?: boolean;
  /** Asked (a terminal) whether hand-edited files may be overwritten; absent: refuse. */
  confirm?: (paths: readonly string[]) => Promise<boolean>;
}

/** What a rewind did (or, with `dryRun`, would do). */
export interface RewindReport {
  sessionId: string;
  seq: number;
  /** The workspace root whose files were restored. */
  root: string;
  /** The checkpoint restored and the event that recorded it. */
  checkpoint: string;
  checkpointSeq: number;
  changes: { path: string; change: "added" | "modified" | "deleted" }[];
  handEdited: string[];
  dryRun: boolean;
  /** The checkpoint of the files as they were before (what `--undo` restores). */
  undo?: string;
  /** The fork made at `seq` (not with `filesOnly` or `dryRun`). */
  forkSessionId?: string;
}

/** The state the agent (or the last rewind) left: files differing from it are hand edits. */
async function agentBaseline(
  store: CheckpointStore,
  checkpoints: readonly SessionCheckpoint[],
): Promise<string | undefined> {
  const latest = checkpointAt(checkpoints);
  const last = (await readRewinds(store)).at(-1);
  if (last !== undefined && (latest === undefined || last.at > (latest as SessionCheckpoint).ts)) {
    return last.target;
  }
  return latest?.checkpoint.id;
}

/** Opens the checkpoint store of a session's recorded cwd (or the caller's, without a session). */
export async function storeOfCwd(
  home: string,
  cwd: string,
  sessionId?: string,
): Promise<CheckpointStore> {
  if (!existsSync(cwd)) {
    if (sessionId !== undefined) throw new SessionCwdMissingError(sessionId, cwd);
    throw new TapedeckError("CWD_MISSING", `${cwd} is not an existing directory.`);
  }
  return openCheckpointStore({ home, cwd });
}

/**
 * `tapedeck rewind ID@SEQ`: restores the workspace's files to the latest checkpoint at or before
 * SEQ and forks the conversation there (the fork is the workspace's latest session, what `-c`
 * continues). Before any file changes, the current files are checkpointed and journaled, so
 * {@link undoLastRewind} brings them back exactly; each file is replaced by temp + rename.
 *
 * @throws HandEditsError, TapedeckError `NO_CHECKPOINT`, CheckpointError, SessionNotFoundError
 */
export async function rewindSession(
  sessions: SessionStore,
  options: RewindOptions,
): Promise<RewindReport> {
  const session = await sessions.readSession(options.sessionId);
  const seq = options.seq ?? session.lastSeq;
  const checkpoints = describeCheckpoints(session.events);
  const target = checkpointAt(checkpoints, seq);
  if (target === undefined) {
    throw new TapedeckError(
      "NO_CHECKPOINT",
      `Session ${options.sessionId} has no checkpoint at or before event ${seq} (checkpoints were off, or the session predates them).`,
    );
  }
  const store = await storeOfCwd(sessions.home, session.header.cwd, options.sessionId);
  const baseline = await agentBaseline(store, checkpoints);
  const plan = await planRestore(store, {
    target: target.checkpoint.id,
    ...(baseline === undefined ? {} : { agentLatest: baseline }),
  });
  const report: RewindReport = {
    sessionId: options.sessionId,
    seq,
    root: store.workspace.root,
    checkpoint: target.checkpoint.id,
    checkpointSeq: target.seq,
    changes: plan.changes.map((change) => ({
      path: change.path,
      change:
        change.change === "deleted"
          ? "deleted"
          : change.oldMode === "000000"
            ? "added"
            : "modified",
    })),
    handEdited: plan.handEdited,
    dryRun: options.dryRun === true,
  };
  if (options.dryRun) return report;
  if (plan.handEdited.length > 0 && options.force !== true) {
    const agreed = options.confirm === undefined ? false : await options.confirm(plan.handEdited);
    if (!agreed) {
      throw new HandEditsError(
        plan.handEdited,
        options.confirm === undefined
          ? "Nothing was changed; rerun with --force to overwrite them (the rewind can be undone with --undo)."
          : "Nothing was changed.",
      );
    }
  }
  let forkSessionId: string | undefined;
  if (options.filesOnly !== true) {
    forkSessionId = (await sessions.fork(options.sessionId, { atSeq: seq })).sessionId;
  }
  await applyRestore(store, plan, {
    sessionId: options.sessionId,
    seq,
    ...(forkSessionId === undefined ? {} : { forkSessionId }),
    kind: "rewind",
  });
  return {
    ...report,
    undo: plan.current.id,
    ...(forkSessionId === undefined ? {} : { forkSessionId }),
  };
}

/** What an undo restored (or, dry run, would restore). */
export interface UndoReport {
  /** The workspace root. */
  root: string;
  /** The checkpoint the files were put back to. */
  restored: string;
  changes: RewindReport["changes"];
  /** The checkpoint of the files before the undo (a second undo redoes); absent in a dry run. */
  undo?: string;
}

/**
 * `tapedeck rewind --undo`: puts back the files the workspace of `cwd` had before its last rewind
 * (or undo), hand edits included. Itself journaled, so a second undo redoes. With `expectUndo`
 * (the `undo` of the rewind the caller showed), refuses with {@link UndoMovedError} when the
 * workspace's last rewind is another one.
 */
export async function undoLastRewind(
  home: string,
  cwd: string,
  options: { dryRun?: boolean; expectUndo?: string } = {},
): Promise<UndoReport> {
  const store = await storeOfCwd(home, cwd);
  const last = await lastRewind(store);
  if (options.expectUndo !== undefined && last.undo !== options.expectUndo) {
    throw new UndoMovedError(store.workspace.root);
  }
  const plan = await planRestore(store, { target: last.undo });
  const changes = plan.changes.map((change) => ({
    path: change.path,
    change: (change.change === "deleted"
      ? "deleted"
      : change.oldMode === "000000"
        ? "added"
        : "modified") as RewindReport["changes"][number]["change"],
  }));
  if (options.dryRun) return { root: store.workspace.root, restored: last.undo, changes };
  await applyRestore(store, plan, { kind: "undo" });
  return { root: store.workspace.root, restored: last.undo, changes, undo: plan.current.id };
}
