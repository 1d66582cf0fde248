/** The rows of the session timeline. Everything from the log is rendered as text. */
import type { SessionEvent } from "@tapedeck/session";
import { LongText, preview } from "./text";
import { eventLabel, type TimelineRow } from "./timeline";

interface RowProps {
  row: TimelineRow;
  bySeq: Map<number, SessionEvent>;
  selected: boolean;
  onSelectSeq(seq: number | null): void;
  onFork(seq: number): void;
}

function RowActions({
  seq,
  onSelectSeq,
  onFork,
}: {
  seq: number;
  onSelectSeq(seq: number): void;
  onFork(seq: number): void;
}) {
  return (
    <span className="row-actions">
      <button
        type="button"
        className="link"
        onClick={() => onSelectSeq(seq)}
        title="Trace this event"
      >
        #{seq}
      </button>
      <button
        type="button"
        className="link"
        onClick={() => onFork(seq)}
        title="Fork a new session from this event"
      >
        Fork from here
      </button>
    </span>
  );
}

/** One timeline row: turn header, message, tool call with its output, compaction, model call. */
export function Row({ row, bySeq, selected, onSelectSeq, onFork }: RowProps) {
  const className = `row row-${row.kind}${selected ? " selected" : ""}${"replacedBy" in row && row.replacedBy !== null ? " replaced" : ""}`;
  const replacedTag =
    "replacedBy" in row && row.replacedBy !== null ? (
      <button
        type="button"
        className="tag link"
        onClick={() => row.replacedBy !== null && onSelectSeq(row.replacedBy)}
      >
        replaced by #{row.replacedBy}
      </button>
    ) : null;
  switch (row.kind) {
    case "turn": {
      if (row.seed) {
        return (
          <div className={className} data-seq={row.seq}>
            <span className="turn-title">Seed</span>
            <span className="muted small">system prompt and instructions</span>
          </div>
        );
      }
      const status = row.end?.status ?? "open";
      return (
        <div className={className} data-seq={row.seq}>
          <span className="turn-title">Turn {row.turn}</span>
          <span className={`status status-${status}`}>
            {status}
            {row.end?.synthetic === true ? " (synthetic)" : ""}
          </span>
          {row.start?.resumed === true ? <span className="tag">resumed</span> : null}
          <span className="muted small">
            {row.start?.model} · {row.start?.policy.approval} · {row.modelCalls} model call
            {row.modelCalls === 1 ? "" : "s"} ·{" "}
            <span data-testid="turn-usage">
              {row.usage.inputTokens.toLocaleString()} in /{" "}
              {row.usage.outputTokens.toLocaleString()} out tokens
            </span>
          </span>
          <RowActions seq={row.seq} onSelectSeq={onSelectSeq} onFork={onFork} />
        </div>
      );
    }
    case "message":
      return (
        <div className={`${className} role-${row.role}`} data-seq={row.seq}>
          <div className="row-head">
            <span className="role">{row.role}</span>
            {row.partial ? (
              <span className="tag warn">interrupted: streamed, never completed</span>
            ) : null}
            {replacedTag}
            <RowActions seq={row.seq} onSelectSeq={onSelectSeq} onFork={onFork} />
          </div>
          {row.role === "system" || row.role === "developer" ? (
            <details>
              <summary>{preview(row.content, 100)}</summary>
              <LongText text={row.content} />
            </details>
          ) : (
            <LongText text={row.content} />
          )}
        </div>
      );
    case "tool": {
      const output = row.output;
      const state = output === null ? "no output" : output.isError ? "error" : "ok";
      return (
        <div className={className} data-seq={row.seq}>
          <details open={output !== null && output.output.length < 400}>
            <summary>
              <span className="role">tool</span> <code>{row.call.name}</code>{" "}
              <span className="muted">{preview(row.call.arguments, 80)}</span>{" "}
              <span className={`status status-${state === "ok" ? "completed" : "interrupted"}`}>
                {state}
              </span>
              {output?.synthetic === true ? <span className="tag warn">synthetic</span> : null}
              {row.approval.requested ? (
                <span className="tag">approval: {row.approval.decision ?? "pending"}</span>
              ) : null}
              {replacedTag}
            </summary>
            <div className="tool-body">
              <div className="muted small">arguments</div>
              <LongText text={row.call.arguments} limit={1000} />
              {output !== null ? (
                <>
                  <div className="muted small">output (#{output.seq})</div>
                  <LongText text={output.output} className={output.isError ? "error-text" : ""} />
                </>
              ) : null}
            </div>
          </details>
          <RowActions seq={row.seq} onSelectSeq={onSelectSeq} onFork={onFork} />
        </div>
      );
    }
    case "compaction":
      return (
        <div className={className} data-seq={row.seq}>
          <div className="row-head">
            <span className="role">compaction</span>
            {replacedTag}
            <RowActions seq={row.seq} onSelectSeq={onSelectSeq} onFork={onFork} />
          </div>
          <LongText text={row.summary} />
          <details>
            <summary>Replaced {row.replaces.length} events</summary>
            <ul className="replaced-list">
              {row.replaces.map((replacedSeq) => {
                const event = bySeq.get(replacedSeq);
                return (
                  <li key={replacedSeq}>
                    <button type="button" className="link" onClick={() => onSelectSeq(replacedSeq)}>
                      #{replacedSeq}
                    </button>{" "}
                    {event === undefined ? "(not in this log)" : preview(eventLabel(event), 160)}
                  </li>
                );
              })}
            </ul>
          </details>
        </div>
      );
    case "model":
      return (
        <div className={className} data-seq={row.seq}>
          <span className="role">model call</span>
          <span className="muted small">
            {row.request.provider}:{row.request.model} · {row.request.inputItems.length} input items
            · {row.finishReason ?? "no response"}
          </span>
          <button type="button" className="link" onClick={() => onSelectSeq(row.seq)}>
            Show input
          </button>
          <RowActions seq={row.seq} onSelectSeq={onSelectSeq} onFork={onFork} />
        </div>
      );
    case "note":
      return (
        <div
          className={`${className} ${row.tone === "error" ? "error-text" : ""}`}
          data-seq={row.seq}
        >
          <pre className="text">{row.text}</pre>
          <RowActions seq={row.seq} onSelectSeq={onSelectSeq} onFork={onFork} />
        </div>
      );
  }
}
