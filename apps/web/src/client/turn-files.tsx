/**
 * Under each turn: the files its tool calls changed (from the log's checkpoint fields), each
 * opening as a diff of the file at that checkpoint against the one before, and "Restore files to
 * here" / "Rewind to here" with a preview (the server's dry run) before anything changes. A file's
 * diff is a query enabled on open; the dry run, the rewind and the undo are mutations, and a
 * rewind or undo invalidates the lists, the lineage and the session's checkpoint diffs.
 */

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { DiffView, diffLines, type TimelineRow } from "@tapedeck/html-export/render";
import { useState } from "react";
import { type AnswerOf, api } from "./api";
import { invalidateSession } from "./invalidate";

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
  const [open, setOpen] = useState(false);
  // Asked when first opened; a rewind or restore of the session invalidates it.
  const query = useQuery({
    queryKey: ["checkpoint-file", sessionId, file.seq, file.path],
    queryFn: () => api.checkpointFile(sessionId, file.seq, file.path),
    enabled: open,
  });
  const answer: FileAnswer | null = query.data ?? null;
  const error = query.error?.message ?? null;
  return (
    <li>
      <button
        type="button"
        className="link-button"
        data-testid="changed-file"
        onClick={() => setOpen(!open)}
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
  const client = useQueryClient();
  const [preview, setPreview] = useState<{ plan: RewindAnswer; filesOnly: boolean } | null>(null);
  // What the last write said, and the undo checkpoint of the restore this page just made.
  const [done, setDone] = useState<{ message: string; undo: string | null } | null>(null);
  const { toSeq } = checkpoints;
  const dryRun = useMutation({
    mutationFn: (filesOnly: boolean) =>
      api.rewind(sessionId, { seq: toSeq ?? 0, filesOnly, dryRun: true }),
    onMutate: () => setDone(null),
    onSuccess: (plan, filesOnly) => setPreview({ plan, filesOnly }),
  });
  const rewind = useMutation({
    mutationFn: ({ filesOnly, force }: { filesOnly: boolean; force: boolean }) =>
      api.rewind(sessionId, { seq: toSeq ?? 0, filesOnly, force }),
    onMutate: () => setPreview(null),
    onSuccess: (answer) => {
      void invalidateSession(client, sessionId);
      if (answer.forkSessionId !== undefined) onOpen(answer.forkSessionId);
      else {
        setDone({
          message: `Restored ${plural(answer.changes.length)}.`,
          undo: answer.undo ?? null,
        });
      }
    },
  });
  const undoRestore = useMutation({
    mutationFn: (checkpoint: string) => api.undoRewind(sessionId, checkpoint),
    onMutate: () => setDone((last) => (last === null ? null : { ...last, undo: null })),
    onSuccess: (undone) => {
      void invalidateSession(client, sessionId);
      setDone({
        message: `Undone: ${plural(undone.changes.length)} put back as before the restore.`,
        undo: null,
      });
    },
  });
  if (toSeq === null) return null;
  const error = (dryRun.error ?? rewind.error ?? undoRestore.error)?.message ?? null;
  const message = done?.message ?? null;
  const undo = done?.undo ?? null;
  const ask = (filesOnly: boolean) => {
    rewind.reset();
    undoRestore.reset();
    dryRun.mutate(filesOnly);
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
        <button type="button" data-testid="restore-files" onClick={() => ask(true)}>
          Restore files to here
        </button>{" "}
        <button type="button" data-testid="rewind-here" onClick={() => ask(false)}>
          Rewind to here
        </button>
      </div>
      {preview !== null ? (
        <RewindPreview
          plan={preview.plan}
          filesOnly={preview.filesOnly}
          onConfirm={(force) => rewind.mutate({ filesOnly: preview.filesOnly, force })}
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
                onClick={() => undoRestore.mutate(undo)}
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
