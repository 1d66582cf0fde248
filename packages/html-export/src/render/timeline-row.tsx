/**
 * The rows of the session timeline, shared by the page and the HTML export. Messages are safe
 * Markdown, tool outputs numbered monospace lines, file edits diffs; everything from the log is
 * text with hidden characters made visible.
 */
import type { BlobRef, SessionEvent } from "@tapedeck/session";
import type { MouseEvent, ReactNode } from "react";
import { eventLabel, formatDuration, type TimelineRow } from "../timeline/timeline";
import { visibleText } from "./controls";
import { fileChangeOf } from "./diff";
import { DiffView } from "./diff-view";
import { MessageText } from "./message-text";
import { ToolOutput } from "./tool-output";
import { Visible } from "./visible";

/** Where a row's links go: the page handles clicks itself, the export follows anchors. */
export interface RowLinks {
  /** The address of an event's trace (`?session=…&seq=…` on the page, `#e-12` in the export). */
  href(seq: number): string;
  /** Opens the trace in place (the page); without it the link is followed. */
  onSelectSeq?(seq: number): void;
  /** "Fork from here"; without it (the export) there is no fork button. */
  onFork?(seq: number): void;
  /**
   * Where an image attachment is loaded from: the page's local route, the export's data URL;
   * `undefined` (or no function) shows its description instead.
   */
  image?(ref: BlobRef): string | undefined;
}

/**
 * The viewer's address of an image attachment: `GET /api/blobs/<sha256>?type=…`, served from this
 * machine's blob store (the data never leaves it).
 */
export function localBlobSrc(ref: BlobRef): string {
  return `/api/blobs/${ref.blob}?type=${encodeURIComponent(ref.mediaType)}`;
}

/** Raster images a page may show from a blob (never SVG, which can carry script). */
const shownImageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A message's or output's attachments: images shown, anything else named by its description. */
export function Attachments({
  refs,
  links,
}: {
  refs: readonly BlobRef[] | undefined;
  links: RowLinks;
}): ReactNode {
  if (refs === undefined || refs.length === 0) return null;
  // One of each blob (the same image twice in one event is shown once).
  const unique = refs.filter(
    (ref, at) => refs.findIndex((other) => other.blob === ref.blob) === at,
  );
  return (
    <div className="attachments">
      {unique.map((ref) => {
        const src = shownImageTypes.has(ref.mediaType) ? links.image?.(ref) : undefined;
        return src === undefined ? (
          <span key={ref.blob} className="tag">
            <Visible text={ref.preview} />
          </span>
        ) : (
          <img key={ref.blob} className="attachment" src={src} alt={ref.preview} loading="lazy" />
        );
      })}
    </div>
  );
}

interface RowProps {
  row: TimelineRow;
  bySeq: ReadonlyMap<number, SessionEvent>;
  selected: boolean;
  links: RowLinks;
  /** Show every tool call open and every output whole (the export). */
  expanded?: boolean;
}

/** A single-line preview with hidden characters made visible. */
export function preview(text: string, limit = 140): string {
  const flat = visibleText(text).replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

/** `#seq`, a link to the event's trace. */
export function SeqLink({ seq, links, label }: { seq: number; links: RowLinks; label?: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (links.onSelectSeq === undefined) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    links.onSelectSeq(seq);
  };
  return (
    <a className="seq" href={links.href(seq)} data-seq-link={seq} onClick={onClick} title="Trace">
      {label ?? `#${seq}`}
    </a>
  );
}

function RowActions({ seq, links }: { seq: number; links: RowLinks }) {
  return (
    <span className="row-actions">
      <SeqLink seq={seq} links={links} />
      {links.onFork !== undefined ? (
        <button
          type="button"
          className="link"
          onClick={() => links.onFork?.(seq)}
          title="Fork a new session from this event"
        >
          Fork from here
        </button>
      ) : null}
    </span>
  );
}

function count(value: number, unit: string): string {
  return `${value.toLocaleString("en-US")} ${unit}${value === 1 ? "" : "s"}`;
}

/** The turn's summary line: duration, model calls, tokens. */
export function turnSummary(row: Extract<TimelineRow, { kind: "turn" }>): string {
  const parts: string[] = [];
  if (row.durationMs !== null) parts.push(formatDuration(row.durationMs));
  parts.push(count(row.modelCalls, "model call"));
  const cached = row.usage.cachedInputTokens ?? 0;
  parts.push(
    `${row.usage.inputTokens.toLocaleString("en-US")} in / ${row.usage.outputTokens.toLocaleString("en-US")} out tokens${cached > 0 ? ` (${cached.toLocaleString("en-US")} cached)` : ""}`,
  );
  return parts.join(" · ");
}

function TurnRow({
  row,
  className,
  links,
}: {
  row: Extract<TimelineRow, { kind: "turn" }>;
  className: string;
  links: RowLinks;
}) {
  if (row.seed) {
    return (
      <div className={className} data-seq={row.seq} data-turn={0}>
        <span className="turn-title">Seed</span>
        <span className="muted small">system prompt and instructions</span>
        <RowActions seq={row.seq} links={links} />
      </div>
    );
  }
  const status = row.end?.status ?? "open";
  return (
    <div className={className} data-seq={row.seq} data-turn={row.turn}>
      <span className="turn-title">Turn {row.turn}</span>
      <span className={`status status-${status}`}>
        {status}
        {row.end?.synthetic === true ? " (synthetic)" : ""}
      </span>
      {row.start?.resumed === true ? <span className="tag">resumed</span> : null}
      <span className="muted small turn-summary" data-testid="turn-summary">
        {row.start?.model} · <span data-testid="turn-usage">{turnSummary(row)}</span>
      </span>
      <RowActions seq={row.seq} links={links} />
    </div>
  );
}

function ToolRowView({
  row,
  className,
  links,
  selected,
  expanded,
  replacedTag,
}: {
  row: Extract<TimelineRow, { kind: "tool" }>;
  className: string;
  links: RowLinks;
  selected: boolean;
  expanded: boolean;
  replacedTag: ReactNode;
}) {
  const output = row.output;
  const state = output === null ? "no output" : output.isError ? "error" : "ok";
  const change = fileChangeOf(row.call.name, row.call.arguments);
  const open = expanded || selected || (output !== null && output.output.length < 400);
  return (
    <div className={className} data-seq={row.seq}>
      <details open={open}>
        <summary>
          <span className="role">tool</span>{" "}
          <code>
            <Visible text={row.call.name} />
          </code>{" "}
          <span className="muted args-preview">{preview(row.call.arguments, 80)}</span>{" "}
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
          {change !== null ? (
            <DiffView change={change} />
          ) : (
            <>
              <div className="muted small">arguments</div>
              <ToolOutput text={row.call.arguments} all={expanded} />
            </>
          )}
          {output !== null ? (
            <>
              <div className="muted small">
                output <SeqLink seq={output.seq} links={links} />
              </div>
              <ToolOutput text={output.output} error={output.isError} all={expanded} />
              <Attachments refs={output.attachments} links={links} />
            </>
          ) : null}
        </div>
      </details>
      <RowActions seq={row.seq} links={links} />
    </div>
  );
}

/** One timeline row: turn header, message, tool call with its output, compaction, model call. */
export function Row({ row, bySeq, selected, links, expanded = false }: RowProps): ReactNode {
  const replaced = "replacedBy" in row && row.replacedBy !== null;
  const className = `row row-${row.kind}${selected ? " selected" : ""}${replaced ? " replaced" : ""}`;
  const replacedTag =
    "replacedBy" in row && row.replacedBy !== null ? (
      <SeqLink seq={row.replacedBy} links={links} label={`replaced by #${row.replacedBy}`} />
    ) : null;
  switch (row.kind) {
    case "turn":
      return <TurnRow row={row} className={className} links={links} />;
    case "message":
      return (
        <div className={`${className} role-${row.role}`} data-seq={row.seq}>
          <div className="row-head">
            <span className="role">{row.role}</span>
            {row.partial ? (
              <span className="tag warn">interrupted: streamed, never completed</span>
            ) : null}
            {replacedTag}
            <RowActions seq={row.seq} links={links} />
          </div>
          {row.role === "system" || row.role === "developer" ? (
            <details open={expanded}>
              <summary>{preview(row.content, 100)}</summary>
              <MessageText text={row.content} />
            </details>
          ) : (
            <MessageText text={row.content} />
          )}
          <Attachments refs={row.attachments} links={links} />
        </div>
      );
    case "tool":
      return (
        <ToolRowView
          row={row}
          className={className}
          links={links}
          selected={selected}
          expanded={expanded}
          replacedTag={replacedTag}
        />
      );
    case "compaction":
      return (
        <div className={className} data-seq={row.seq}>
          <div className="row-head">
            <span className="role">compaction</span>
            {replacedTag}
            <RowActions seq={row.seq} links={links} />
          </div>
          <MessageText text={row.summary} />
          <details>
            <summary>Replaced {row.replaces.length} events</summary>
            <ul className="replaced-list">
              {row.replaces.map((replacedSeq) => {
                const event = bySeq.get(replacedSeq);
                return (
                  <li key={replacedSeq}>
                    <SeqLink seq={replacedSeq} links={links} />{" "}
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
            <Visible
              text={`${row.request.provider}:${row.request.model} · ${row.request.inputItems.length} input items · ${row.finishReason ?? "no response"}`}
            />
          </span>
          <SeqLink seq={row.seq} links={links} label="Show input" />
          <RowActions seq={row.seq} links={links} />
        </div>
      );
    case "note":
      return (
        <div
          className={`${className} ${row.tone === "error" ? "error-text" : ""}`}
          data-seq={row.seq}
        >
          <pre className="text">
            <Visible text={row.text} />
          </pre>
          <RowActions seq={row.seq} links={links} />
        </div>
      );
  }
}
