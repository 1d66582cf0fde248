/**
 * How the answers of {@link runQueryAction} read: compact text lines for a model, and the same
 * facts as plain JSON data (MCP `structuredContent`). Event text is untrusted log content; it is
 * clipped and whitespace-collapsed in text lines so one huge output cannot drown the answer.
 */
import type { CheckpointRecord, Session, SessionEvent } from "@tapedeck/session";
import type {
  EventHit,
  EventTrace,
  Lineage,
  LineageNode,
  Page,
  SessionSummary,
  SubAgentLink,
  TracedEvent,
} from "./query-engine";
import { eventText } from "./text";

/** Characters of an event's text shown on one line of `read_session`. */
const LINE_TEXT = 400;
/** Characters of an event's text kept in the structured answer of `read_session`. */
const DATA_TEXT = 4000;

const clip = (text: string, length: number) =>
  text.length <= length ? text : `${text.slice(0, length - 1)}…`;

function kindOf(event: SessionEvent): string {
  return event.type === "message" ? `message/${event.role}` : event.type;
}

/** `- <id> · <status> · updated … · N turns · [fork of …] · "title"` */
export function describeSession(summary: SessionSummary): string {
  const parts = [
    summary.id,
    summary.status,
    `updated ${summary.updatedAt}`,
    `${summary.turnCount} turns`,
    summary.parent === null
      ? null
      : `fork of ${summary.parent.sessionId} at seq ${summary.parent.seq}`,
    summary.title === null ? "(no user message)" : JSON.stringify(summary.title),
  ];
  return `- ${parts.filter((part) => part !== null).join(" · ")}`;
}

/** Two lines per hit: where it is, then the snippet. */
export function describeHit(hit: EventHit): string {
  const { event } = hit;
  return `- session ${hit.sessionId} seq ${event.seq} · ${event.ts} · ${kindOf(event)}\n  ${hit.snippet}`;
}

/** A page as lines, with `nextCursor: …` last when there is more. */
export function pageText<T>(page: Page<T>, describe: (item: T) => string, empty: string): string {
  if (page.items.length === 0) return empty;
  const lines = page.items.map(describe);
  if (page.nextCursor !== null) lines.push(`nextCursor: ${page.nextCursor}`);
  return lines.join("\n");
}

const CHANGE_LETTER = { added: "A", modified: "M", deleted: "D", renamed: "R", mode: "T" } as const;

/** The checkpoint an event carries (`turn/start`, a tool's output), if any. */
function checkpointOf(event: SessionEvent): CheckpointRecord | undefined {
  return event.type === "turn/start" || event.type === "function_call_output"
    ? event.checkpoint
    : undefined;
}

/** ` [files: M a.ts, A b.ts]`: what a checkpoint says changed (none, or why it was skipped). */
export function checkpointNote(checkpoint: CheckpointRecord | undefined): string {
  if (checkpoint === undefined) return "";
  if (checkpoint.id === undefined) return ` [checkpoint skipped: ${checkpoint.skipped ?? "?"}]`;
  const files = checkpoint.changed
    .slice(0, 20)
    .map((change) =>
      change.from === undefined
        ? `${CHANGE_LETTER[change.change]} ${change.path}`
        : `R ${change.from} -> ${change.path}`,
    );
  const more = (checkpoint.more ?? 0) + Math.max(0, checkpoint.changed.length - 20);
  if (more > 0) files.push(`… ${more} more`);
  return files.length === 0 ? " [files: no change]" : ` [files: ${files.join(", ")}]`;
}

/**
 * The files each turn's tools changed (from the checkpoints on their outputs), by the turn's
 * `runId`: what `read_session` adds to each `turn/end` line.
 */
export function filesChangedByTurn(events: readonly SessionEvent[]): Map<string, string[]> {
  const byRun = new Map<string, Set<string>>();
  for (const event of events) {
    if (event.type !== "function_call_output" || event.checkpoint === undefined) continue;
    const files = byRun.get(event.runId) ?? new Set<string>();
    for (const change of event.checkpoint.changed) files.add(change.path);
    byRun.set(event.runId, files);
  }
  return new Map([...byRun].map(([runId, files]) => [runId, [...files]]));
}

/** ` [turn changed files: a, b]` for a `turn/end` line. */
export function turnFilesNote(files: readonly string[] | undefined): string {
  if (files === undefined) return "";
  if (files.length === 0) return " [turn changed no file]";
  const shown = files.slice(0, 20).join(", ");
  return ` [turn changed files: ${shown}${files.length > 20 ? `, … ${files.length - 20} more` : ""}]`;
}

/** One `read_session` line: `#seq kind[ (compacted away)]: text[ [files: …]]`. */
export function eventLine(event: SessionEvent, compactedAway: boolean): string {
  const text = eventText(event);
  const hidden = compactedAway ? " (compacted away)" : "";
  return `#${event.seq} ${kindOf(event)}${hidden}${text === "" ? "" : `: ${clip(text.replace(/\s+/gu, " "), LINE_TEXT)}`}${checkpointNote(checkpointOf(event))}`;
}

function describeTree(nodes: LineageNode[], indent: string): string[] {
  return nodes.flatMap((node) => [
    `${indent}- ${node.session.id} (forked at seq ${node.forkSeq}) ${node.session.title === null ? "" : JSON.stringify(node.session.title)}`.trimEnd(),
    ...describeTree(node.children, `${indent}  `),
  ]);
}

/** The lineage as an indented tree. */
export function describeLineage(lineage: Lineage): string {
  const lines = [`session: ${describeSession(lineage.session).slice(2)}`];
  if (lineage.ancestors.length > 0) {
    lines.push("ancestors (nearest first):");
    for (const ancestor of lineage.ancestors) {
      lines.push(`- ${ancestor.session.id}, branched at its seq ${ancestor.forkSeq}`);
    }
  }
  lines.push(lineage.descendants.length > 0 ? "forks:" : "forks: none");
  lines.push(...describeTree(lineage.descendants, ""));
  if (lineage.spawnedBy !== undefined) {
    lines.push(
      `sub-agent of ${lineage.spawnedBy.session.id} at seq ${lineage.spawnedBy.seq} (call ${lineage.spawnedBy.callId})`,
    );
  }
  if (lineage.subAgents !== undefined) {
    lines.push("sub-agents:");
    for (const link of lineage.subAgents) {
      lines.push(
        `- ${link.session.id} (started at seq ${link.seq}) ${link.session.title === null ? "" : JSON.stringify(link.session.title)}`.trimEnd(),
      );
    }
  }
  return lines.join("\n");
}

/** A trace in five lines. */
export function describeTrace(seq: number, trace: EventTrace): string {
  const show = (event: { seq: number; event: { type: string } }) =>
    `#${event.seq} ${event.event.type}`;
  return [
    `event #${seq} ${trace.event.type} · ${trace.visible ? "visible" : "not visible"} on the surface`,
    `replacement chain: ${trace.replacementChain.map(show).join(" → ")}`,
    `current version: ${trace.current === null ? "none" : show(trace.current)}`,
    `cites: ${trace.sources.length === 0 ? "nothing" : trace.sources.map((source) => `${show(source)} (${source.via})`).join(", ")}`,
    `cited by: ${trace.citedBy.length === 0 ? "nothing" : trace.citedBy.map((citer) => `${show(citer)} (${citer.via}, depth ${citer.depth})`).join(", ")}`,
    ...(trace.subAgents === undefined
      ? []
      : [`started sub-agents: ${trace.subAgents.map((session) => session.id).join(", ")}`]),
  ].join("\n");
}

/** The summary fields worth a model's tokens. */
export function sessionData(summary: SessionSummary): Record<string, unknown> {
  return {
    id: summary.id,
    title: summary.title,
    status: summary.status,
    cwd: summary.cwd,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    turnCount: summary.turnCount,
    eventCount: summary.eventCount,
    parent: summary.parent,
    forkCount: summary.forkCount,
    model: summary.model,
    ...(summary.spawnedBy === undefined ? {} : { spawnedBy: summary.spawnedBy }),
  };
}

/** An event's facts; its text clipped to `length` characters (none when `length` is 0). */
function eventData(event: SessionEvent, length: number): Record<string, unknown> {
  const text = length === 0 ? "" : eventText(event);
  return {
    seq: event.seq,
    ts: event.ts,
    type: event.type,
    ...(event.type === "message" ? { role: event.role } : {}),
    ...(event.type === "function_call" ? { name: event.name, callId: event.callId } : {}),
    ...(event.type === "function_call_output"
      ? { callId: event.callId, isError: event.isError }
      : {}),
    ...(text === "" ? {} : { text: clip(text, length) }),
    ...(checkpointOf(event) === undefined ? {} : { checkpoint: checkpointOf(event) }),
  };
}

/** One search hit. */
export function hitData(hit: EventHit): Record<string, unknown> {
  return {
    sessionId: hit.sessionId,
    ...eventData(hit.event, 0),
    snippet: hit.snippet,
  };
}

/** A page of a session's events. */
export function readData(
  session: Session,
  events: readonly SessionEvent[],
  nextFromSeq: number | null,
): Record<string, unknown> {
  return {
    sessionId: session.sessionId,
    eventCount: session.events.length,
    lastSeq: session.lastSeq,
    turnCount: session.turnCount,
    events: events.map((event) => ({
      ...eventData(event, DATA_TEXT),
      compactedAway: session.replacedBy.has(event.seq),
    })),
    nextFromSeq,
  };
}

const tracedData = (traced: TracedEvent) => ({ seq: traced.seq, type: traced.event.type });

/** A trace, events by seq and type. */
export function traceData(trace: EventTrace): Record<string, unknown> {
  return {
    sessionId: trace.sessionId,
    event: eventData(trace.event, DATA_TEXT),
    visible: trace.visible,
    replacementChain: trace.replacementChain.map(tracedData),
    current: trace.current === null ? null : tracedData(trace.current),
    sources: trace.sources.map((source) => ({ ...tracedData(source), via: source.via })),
    citedBy: trace.citedBy.map((citer) => ({
      ...tracedData(citer),
      depth: citer.depth,
      via: citer.via,
    })),
    ...(trace.subAgents === undefined ? {} : { subAgents: trace.subAgents.map(sessionData) }),
  };
}

function nodeData(node: LineageNode): Record<string, unknown> {
  return {
    session: sessionData(node.session),
    forkSeq: node.forkSeq,
    children: node.children.map(nodeData),
  };
}

/** A lineage tree. */
export function lineageData(lineage: Lineage): Record<string, unknown> {
  return {
    session: sessionData(lineage.session),
    ancestors: lineage.ancestors.map((ancestor) => ({
      session: sessionData(ancestor.session),
      forkSeq: ancestor.forkSeq,
    })),
    descendants: lineage.descendants.map(nodeData),
    ...(lineage.spawnedBy === undefined ? {} : { spawnedBy: linkData(lineage.spawnedBy) }),
    ...(lineage.subAgents === undefined ? {} : { subAgents: lineage.subAgents.map(linkData) }),
  };
}

function linkData(link: SubAgentLink): Record<string, unknown> {
  return { session: sessionData(link.session), seq: link.seq, callId: link.callId };
}
