import { type CheckpointFile, fileAt, loggedCheckpoints } from "@tapedeck/checkpoints";
import { type CheckpointChange, TapedeckError } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import { storeOfCwd } from "./rewind";

/** One file's change at a checkpoint: its content there and at the checkpoint before. */
export interface CheckpointFileChange {
  sessionId: string;
  /** The event whose checkpoint holds the change. */
  seq: number;
  path: string;
  /** What the log says changed (absent when the path is not among the listed changes). */
  change?: CheckpointChange["change"];
  /** The path before, for a rename. */
  from?: string;
  /** The file at the session's previous checkpoint (`absent` when there is none). */
  before: CheckpointFile;
  /** The file at this event's checkpoint. */
  after: CheckpointFile;
}

/** A workspace-relative path: no leading `/`, no `..` or empty segment, no NUL. */
function checkedPath(filePath: string): string {
  const segments = filePath.split("/");
  if (
    filePath.length === 0 ||
    filePath.length > 4096 ||
    filePath.includes("\0") ||
    segments.some((segment) => segment === "" || segment === "." || segment === "..")
  ) {
    throw new TapedeckError(
      "BAD_PATH",
      `${JSON.stringify(filePath)} is not a workspace-relative file path.`,
    );
  }
  return filePath;
}

/**
 * The two versions of `path` behind a checkpoint's change (the viewer's diff): the content at the
 * checkpoint event `seq` records and at the session's checkpoint before it. Text up to `maxBytes`
 * (default 256 KiB); larger or binary files say so.
 *
 * @throws TapedeckError `NO_CHECKPOINT` (event `seq` records no taken checkpoint), `BAD_PATH`,
 *   CheckpointError, SessionNotFoundError, SessionCwdMissingError
 */
export async function checkpointFileChange(
  sessions: SessionStore,
  options: { sessionId: string; seq: number; path: string; maxBytes?: number },
): Promise<CheckpointFileChange> {
  const filePath = checkedPath(options.path);
  const session = await sessions.readSession(options.sessionId);
  const taken = loggedCheckpoints(session.events).filter(
    (entry) => entry.checkpoint.id !== undefined,
  );
  const index = taken.findIndex((entry) => entry.seq === options.seq);
  const entry = taken[index];
  const id = entry?.checkpoint.id;
  if (entry === undefined || id === undefined) {
    throw new TapedeckError(
      "NO_CHECKPOINT",
      `Event ${options.seq} of session ${options.sessionId} records no checkpoint.`,
    );
  }
  const listed = entry.checkpoint.changed.find((change) => change.path === filePath);
  const previousId = taken[index - 1]?.checkpoint.id;
  const store = await storeOfCwd(sessions.home, session.header.cwd, options.sessionId);
  const before =
    previousId === undefined
      ? ({ kind: "absent" } as const)
      : await fileAt(store, previousId, listed?.from ?? filePath, options.maxBytes);
  const after = await fileAt(store, id, filePath, options.maxBytes);
  return {
    sessionId: options.sessionId,
    seq: options.seq,
    path: filePath,
    ...(listed === undefined ? {} : { change: listed.change }),
    ...(listed?.from === undefined ? {} : { from: listed.from }),
    before,
    after,
  };
}
