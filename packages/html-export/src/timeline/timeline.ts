/**
 * The rows the session page shows: the seed, then one group per turn (user message, assistant
 * text, tool calls paired with their outputs and approvals, compactions with what they replaced,
 * model calls), flattened so a virtual list can render them; built by `timeline-builder.ts`.
 * Pure: no DOM, unit-tested.
 */
import {
  type BlobRef,
  type FunctionCallEvent,
  type FunctionCallOutputEvent,
  type KnownSessionEvent,
  type ModelRequestEvent,
  normalizeErrorCode,
  type SessionEvent,
  type TurnEndEvent,
  type TurnStartEvent,
  type Usage,
} from "@tapedeck/session";
import type { SessionViewData } from "../session-view";

/**
 * The session as `GET /api/sessions/:id` returns it (the server's `sessionView`): events without
 * `assistant/chunk` unless asked, `streamedText` (requestId → the text streamed for it) instead.
 */
export type { SessionViewData };

/** A tool call with everything that answers it. */
export interface ToolRow {
  kind: "tool";
  seq: number;
  turn: number;
  call: FunctionCallEvent;
  output: FunctionCallOutputEvent | null;
  approval: { requested: boolean; decision: string | null };
  replacedBy: number | null;
}

/** One row of the timeline. */
export type TimelineRow =
  | {
      kind: "turn";
      seq: number;
      turn: number;
      start: TurnStartEvent | null;
      end: TurnEndEvent | null;
      usage: Usage;
      modelCalls: number;
      /** Milliseconds from `turn/start` to `turn/end` (null while open or for the seed). */
      durationMs: number | null;
      /** True for the events before the first turn (system prompt, instructions). */
      seed: boolean;
    }
  | {
      kind: "message";
      seq: number;
      turn: number;
      role: string;
      content: string;
      /** Binary parts the message carried (images), each in a blob (`BlobRef`). */
      attachments?: readonly BlobRef[];
      replacedBy: number | null;
      /** Assistant text streamed but never completed (the run ended mid-answer). */
      partial: boolean;
    }
  | ToolRow
  | {
      kind: "compaction";
      seq: number;
      turn: number;
      summary: string;
      replaces: number[];
      replacedBy: number | null;
    }
  | {
      kind: "model";
      seq: number;
      turn: number;
      request: ModelRequestEvent;
      finishReason: string | null;
    }
  | { kind: "note"; seq: number; turn: number; text: string; tone: "error" | "info" };

/** The event as one of the known types, or `null` for an `x-*` extension event. */
export function known(event: SessionEvent): KnownSessionEvent | null {
  return event.type.startsWith("x-") ? null : (event as KnownSessionEvent);
}

/** The short text of an event, for lists (trace, replaced events, search). */
export function eventLabel(event: SessionEvent): string {
  const value = known(event);
  if (value === null) return event.type;
  switch (value.type) {
    case "message":
      return `${value.role}: ${value.content}`;
    case "function_call":
      return `call ${value.name}(${value.arguments})`;
    case "function_call_output":
      return `output ${value.callId}: ${value.output}`;
    case "compaction":
      return `compaction: ${value.summary}`;
    case "turn/start":
      return `turn start (${value.model})`;
    case "turn/end":
      return `turn end: ${value.status}`;
    case "error":
      return `error ${normalizeErrorCode(value.code)}: ${value.message}`;
    default:
      return value.type;
  }
}

/** The items the model saw at a `model/request`: its `inputItems` seqs, rebuilt from the log. */
export function modelInput(
  events: readonly SessionEvent[],
  request: ModelRequestEvent,
): Array<{ seq: number; event: SessionEvent | null }> {
  const bySeq = new Map(events.map((event) => [event.seq, event]));
  return request.inputItems.map((seq) => ({ seq, event: bySeq.get(seq) ?? null }));
}

/** Cuts long text for display; the caller offers "show all". */
export function truncate(text: string, limit: number): { text: string; cut: boolean } {
  return text.length <= limit ? { text, cut: false } : { text: text.slice(0, limit), cut: true };
}

/** One bar of the token chart: a turn's tokens split into fresh input, cached input and output. */
export interface TurnTokens {
  turn: number;
  seq: number;
  input: number;
  cached: number;
  output: number;
}

/** The per-turn token figures of a timeline (the seed has none). */
export function tokensPerTurn(rows: readonly TimelineRow[]): TurnTokens[] {
  const bars: TurnTokens[] = [];
  for (const row of rows) {
    if (row.kind !== "turn" || row.seed) continue;
    const cached = row.usage.cachedInputTokens ?? 0;
    bars.push({
      turn: row.turn,
      seq: row.seq,
      input: Math.max(0, row.usage.inputTokens - cached),
      cached,
      output: row.usage.outputTokens,
    });
  }
  return bars;
}

/** A duration for people: `850 ms`, `12.4 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(Math.floor(seconds % 60)).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** The title of a session's page: its own first prompt (a fork's, not its parent's). */
export function sessionTitle(
  events: readonly SessionEvent[],
  parent: { sessionId: string; seq: number } | undefined,
): string | null {
  const from = parent?.seq ?? -1;
  for (const event of events) {
    if (event.seq <= from) continue;
    const value = known(event);
    if (value?.type === "message" && value.role === "user") return value.content;
  }
  return null;
}
