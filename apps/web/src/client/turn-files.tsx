/**
 * Under each turn: the files its tool calls changed (from the log's checkpoint fields), each
 * opening as a diff of the file at that checkpoint against the one before, and "Restore files to
 * here" / "Rewind to here" with a preview (the server's dry run) before anything changes.
 */
import { DiffView, diffLines, type TimelineRow } from "@tapedeck/html-export/render";
import { useState } from "react";
import { type AnswerOf, api } from "./api";

/** One file a turn's tool call changed, with the event whose checkpoint records it. */
export interface TurnFileChange {
  seq: number;
  path: string;
  change: string;
  from?: string;
}

/** What a turn's rows say about its checkpoints. */
export interface TurnCheckpoints {
  changes: TurnFileChange[];
  /** Some checkpoint listed only part of its changes (`more`). */
  more: boolean;
  /** The event "to here" means: the turn's end, or its last checkpoint while it is open. */
  toSeq: number | null;
}

/** The checkpoints of the turn whose header is `rows[index]` (its tool rows follow it). */
export function turnCheckpoints(rows: readonly TimelineRow[], index: number): TurnCheckpoints {
  const head = rows[index];
  const changes: TurnFileChange[] = [];
  let more = false;
  let last: number | null = null;
  if (head?.kind === "turn" && head.start?.checkpoint?.id !== undefined) last = head.seq;
  for (let at = index + 1; at < rows.length; at++) {
    const row = rows[at];
    if (row === undefined || row.kind === "turn") break;
    const checkpoint = row.kind === "tool" ? row.output?.checkpoint : undefined;
    if (row.kind !== "tool" || row.output === null || checkpoint?.id === undefined) continue;
    last = row.output.seq;
    more ||= checkpoint.more !== undefined && checkpoint.more > 0;
    for (const entry of checkpoint.changed) {
      changes.push({
        seq: row.output.seq,
        path: entry.path,
        change: entry.change,
        ...(entry.from === undefined ? {} : { from: entry.from }),
      });
    }
  }
  const toSeq = head?.kind === "turn" && head.end !== null ? head.end.seq : last;
  return { changes, more, toSeq: last === null ? null : toSeq };
}

type FileAnswer = AnswerOf<typeof api.checkpointFile>;
type FileVersion = FileAnswer["after"];

function describe(version: FileVersion): string {
  if (version.kind === "absent") return "no file";
  if (version.kind === "binary") return `binary file, ${version.bytes.toLocaleString()} bytes`;
  if (version.kind === "too-large") {
    return `too large to show, ${version.bytes.toLocaleString()} bytes`;
  }
  return `${version.bytes.toLocaleString()} bytes`;
}

/** The diff of one changed file, or why there is none (binary, too large). */
function FileDiff({ answer }: { answer: FileAnswer }) {
  const { before, after } = answer;
  const text = (version: FileVersion) => (version.kind === "text" ? version.text : "");
  const showable =
    (before.kind === "text" || before.kind === "absent") &&
    (after.kind === "text" || after.kind === "absent");
  if (!showable) {
    return (
      <div className="muted small" data-testid="file-diff-note">
        {answer.path}: before {describe(before)}; after {describe(after)}
      </div>
    );
  }
  return (
    <DiffView
      change={{
        path: answer.path,
        lines: diffLines(text(before), text(after)),
        whole: before.kind === "absent",
      }}
    />
  );
}

function ChangedFile({ sessionId, file }: { sessionId: string; file: TurnFileChange }) {
  const [answer, setAnswer] = useState<FileAnswer | null>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toggle = async () => {
    setOpen(!open);
    if (answer !== null || open) return;
    try {
      setAnswer(await api.checkpointFile(sessionId, file.seq, file.path));
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return (
    <li>
      <button
        type="button"
        className="link-button"
        data-testid="changed-file"
        onClick={() => void toggle()}
      >
        <span className={`tag change-${file.change}`}>{file.change}</span> {file.path}
        {file.from === undefined ? "" : ` (from ${file.from})`}
      </button>
      {open && error !== null ? <div className="error-box">{error}</div> : null}
      {open && answer !== null ? <FileDiff answer={answer} /> : null}
    </li>
  );
}

type RewindAnswer = AnswerOf<typeof api.rewind>;

/** The dry run's list, the hand-edit warning, and the confirm that passes `force` only after it. */
function RewindPreview({
  plan,
  filesOnly,
  onConfirm,
  onCancel,
}: {
  plan: RewindAnswer;
  filesOnly: boolean;
  onConfirm(force: boolean): void;
  onCancel(): void;
}) {
  const [overwrite, setOverwrite] = useState(false);
  const handEdited = plan.handEdited.length > 0;
  return (
    <div className="rewind-preview" data-testid="rewind-preview">
      <div>
        {plan.changes.length === 0
          ? "The files are already as they were here."
          : `${plan.changes.length} file${plan.changes.length === 1 ? "" : "s"} would change:`}
      </div>
      <ul>
        {plan.changes.map((change) => (
          <li key={change.path} data-testid="rewind-change">
            {change.change} {change.path}
          </li>
        ))}
      </ul>
      {handEdited ? (
        <div className="error-box" data-testid="rewind-hand-edits">
          Changed since the agent last touched them (your edits would be overwritten):{" "}
          {plan.handEdited.join(", ")}
          <label>
            <input
              type="checkbox"
              data-testid="rewind-overwrite"
              checked={overwrite}
              onChange={(event) => setOverwrite(event.target.checked)}
            />{" "}
            Overwrite them (undo with <code>tapedeck rewind --undo</code>)
          </label>
        </div>
      ) : null}
      <button
        type="button"
        data-testid="rewind-confirm"
        disabled={handEdited && !overwrite}
        onClick={() => onConfirm(handEdited && overwrite)}
      >
        {filesOnly ? "Restore files" : "Rewind and open the fork"}
      </button>{" "}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

function plural(files: number): string {
  return `${files} file${files === 1 ? "" : "s"}`;
}

/** A turn's changed files and its restore / rewind actions; nothing when it has no checkpoint. */
export function TurnFiles({
  sessionId,
  checkpoints,
  onOpen,
}: {
  sessionId: string;
  checkpoints: TurnCheckpoints;
  onOpen(sessionId: string): void;
}) {
  const [preview, setPreview] = useState<{ plan: RewindAnswer; filesOnly: boolean } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  // The undo checkpoint of the restore this page just made: its Undo button.
  const [undo, setUndo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { toSeq } = checkpoints;
  if (toSeq === null) return null;
  const ask = async (filesOnly: boolean) => {
    setError(null);
    setMessage(null);
    setUndo(null);
    try {
      setPreview({
        plan: await api.rewind(sessionId, { seq: toSeq, filesOnly, dryRun: true }),
        filesOnly,
      });
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const confirm = async (filesOnly: boolean, force: boolean) => {
    setPreview(null);
    try {
      const done = await api.rewind(sessionId, { seq: toSeq, filesOnly, force });
      if (done.forkSessionId !== undefined) onOpen(done.forkSessionId);
      else {
        setMessage(`Restored ${plural(done.changes.length)}.`);
        setUndo(done.undo ?? null);
      }
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const undoRestore = async (checkpoint: string) => {
    setError(null);
    setUndo(null);
    try {
      const undone = await api.undoRewind(sessionId, checkpoint);
      setMessage(`Undone: ${plural(undone.changes.length)} put back as before the restore.`);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return (
    <div className="turn-files" data-testid="turn-files">
      {checkpoints.changes.length > 0 ? (
        <ul>
          {checkpoints.changes.map((file) => (
            <ChangedFile key={`${file.seq}:${file.path}`} sessionId={sessionId} file={file} />
          ))}
          {checkpoints.more ? (
            <li className="muted small">… and more (see tapedeck checkpoints)</li>
          ) : null}
        </ul>
      ) : null}
      <div className="turn-files-actions">
        <button type="button" data-testid="restore-files" onClick={() => void ask(true)}>
          Restore files to here
        </button>{" "}
        <button type="button" data-testid="rewind-here" onClick={() => void ask(false)}>
          Rewind to here
        </button>
      </div>
      {preview !== null ? (
        <RewindPreview
          plan={preview.plan}
          filesOnly={preview.filesOnly}
          onConfirm={(force) => void confirm(preview.filesOnly, force)}
          onCancel={() => setPreview(null)}
        />
      ) : null}
      {message !== null ? (
        <div className="muted small" data-testid="rewind-done">
          {message}
          {undo !== null ? (
            <>
              {" "}
              <button
                type="button"
                data-testid="rewind-undo"
                onClick={() => void undoRestore(undo)}
              >
                Undo
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      {error !== null ? <div className="error-box">{error}</div> : null}
    </div>
  );
}
