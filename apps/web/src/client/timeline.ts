/**
 * Turns a replayed session into the rows the session page shows: the seed, then one group per
 * turn (user message, assistant text, tool calls paired with their outputs and approvals,
 * compactions with what they replaced, model calls), flattened so a virtual list can render them.
 * Pure: no DOM, unit-tested.
 */
import type {
  FunctionCallEvent,
  FunctionCallOutputEvent,
  KnownSessionEvent,
  ModelRequestEvent,
  SessionEvent,
  TurnEndEvent,
  TurnStartEvent,
  Usage,
} from "@tapedeck/session";

/** What `GET /api/sessions/:id` returns. */
export interface SessionViewData {
  header: {
    sessionId: string;
    workspaceId: string;
    cwd: string;
    createdAt: string;
    parent?: { sessionId: string; seq: number };
  };
  /** Without `assistant/chunk` events unless asked (see `streamedText`). */
  events: SessionEvent[];
  /** Every event of the log, chunks included. */
  eventCount: number;
  /** requestId → the text streamed for it. */
  streamedText: Array<[string, string]>;
  currentSeqs: number[];
  replacedBy: Array<[number, number]>;
  openTurn: unknown;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  goal: string | null;
  lastSeq: number;
}

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

function known(event: SessionEvent): KnownSessionEvent | null {
  return event.type.startsWith("x-") ? null : (event as KnownSessionEvent);
}

/** Builds the rows; `replacedBy` maps a seq to the compaction that replaced it. */
export function buildTimeline(
  events: readonly SessionEvent[],
  replacedBy: ReadonlyMap<number, number>,
  streamedText: ReadonlyMap<string, string> = new Map(),
): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const tools = new Map<string, ToolRow>();
  const finish = new Map<string, { finishReason: string | null }>();
  let turnIndex = 0;
  let turnRow: Extract<TimelineRow, { kind: "turn" }> | null = null;
  let streamed = new Map<string, string>();
  let completedRequests = new Set<string>();

  /** Where each model call's row is, so an unfinished answer can go right after it. */
  const requestRows = new Map<string, Extract<TimelineRow, { kind: "model" }>>();
  const flushPartial = () => {
    // Text streamed for a request whose assistant message never came: show what was seen, right
    // after the model call that streamed it.
    for (const [requestId, text] of streamed) {
      if (completedRequests.has(requestId) || text === "") continue;
      const modelRow = requestRows.get(requestId);
      const at = modelRow === undefined ? -1 : rows.indexOf(modelRow);
      const partial: TimelineRow = {
        kind: "message",
        seq: modelRow?.seq ?? turnRow?.seq ?? 0,
        turn: turnIndex,
        role: "assistant",
        content: text,
        replacedBy: null,
        partial: true,
      };
      if (at === -1) rows.push(partial);
      else rows.splice(at + 1, 0, partial);
    }
    streamed = new Map();
    completedRequests = new Set();
  };

  for (const raw of events) {
    const event = known(raw);
    if (event === null) continue;
    if (turnRow === null && event.type !== "turn/start") {
      turnRow = {
        kind: "turn",
        seq: event.seq,
        turn: 0,
        start: null,
        end: null,
        usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
        modelCalls: 0,
        durationMs: null,
        seed: true,
      };
      rows.push(turnRow);
    }
    const replaced = replacedBy.get(event.seq) ?? null;
    switch (event.type) {
      case "turn/start":
        flushPartial();
        turnIndex += 1;
        turnRow = {
          kind: "turn",
          seq: event.seq,
          turn: turnIndex,
          start: event,
          end: null,
          usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
          modelCalls: 0,
          durationMs: null,
          seed: false,
        };
        rows.push(turnRow);
        break;
      case "turn/end":
        flushPartial();
        if (turnRow !== null) {
          turnRow.end = event;
          const started = turnRow.start === null ? Number.NaN : Date.parse(turnRow.start.ts);
          const ended = Date.parse(event.ts);
          turnRow.durationMs =
            Number.isFinite(started) && Number.isFinite(ended)
              ? Math.max(0, ended - started)
              : null;
        }
        break;
      case "message":
        if (event.role === "assistant") {
          // The complete message follows its chunks; mark the latest streamed request complete.
          const last = [...streamed.keys()].at(-1);
          if (last !== undefined) completedRequests.add(last);
        }
        rows.push({
          kind: "message",
          seq: event.seq,
          turn: turnIndex,
          role: event.role,
          content: event.content,
          replacedBy: replaced,
          partial: false,
        });
        break;
      case "assistant/chunk":
        if ("text" in event.delta && !streamedText.has(event.requestId)) {
          streamed.set(event.requestId, (streamed.get(event.requestId) ?? "") + event.delta.text);
        }
        break;
      case "model/request": {
        if (turnRow !== null) turnRow.modelCalls += 1;
        // Chunks may have been left out of the events; their text comes with the session.
        const text = streamedText.get(event.requestId);
        if (text !== undefined) streamed.set(event.requestId, text);
        const row = {
          kind: "model" as const,
          seq: event.seq,
          turn: turnIndex,
          request: event,
          finishReason: null,
        };
        finish.set(event.requestId, row);
        requestRows.set(event.requestId, row);
        rows.push(row);
        break;
      }
      case "model/response": {
        const row = finish.get(event.requestId);
        if (row !== undefined) row.finishReason = event.finishReason;
        if (event.finishReason === "tool_calls" || event.finishReason === "cancelled") {
          completedRequests.add(event.requestId);
        }
        if (turnRow !== null && event.usage !== undefined) {
          turnRow.usage = {
            inputTokens: turnRow.usage.inputTokens + event.usage.inputTokens,
            outputTokens: turnRow.usage.outputTokens + event.usage.outputTokens,
            cachedInputTokens:
              (turnRow.usage.cachedInputTokens ?? 0) + (event.usage.cachedInputTokens ?? 0),
          };
        }
        break;
      }
      case "function_call": {
        const row: ToolRow = {
          kind: "tool",
          seq: event.seq,
          turn: turnIndex,
          call: event,
          output: null,
          approval: { requested: false, decision: null },
          replacedBy: replaced,
        };
        tools.set(event.callId, row);
        rows.push(row);
        break;
      }
      case "function_call_output": {
        const row = tools.get(event.callId);
        if (row !== undefined) row.output = event;
        else {
          rows.push({
            kind: "note",
            seq: event.seq,
            turn: turnIndex,
            text: `Output for unknown call ${event.callId}: ${event.output}`,
            tone: "error",
          });
        }
        break;
      }
      case "approval/request": {
        const row = tools.get(event.callId);
        if (row !== undefined) row.approval.requested = true;
        break;
      }
      case "approval/decision": {
        const row = tools.get(event.callId);
        if (row !== undefined) row.approval.decision = event.decision;
        break;
      }
      case "compaction":
        rows.push({
          kind: "compaction",
          seq: event.seq,
          turn: turnIndex,
          summary: event.summary,
          replaces: event.replaces ?? [],
          replacedBy: replaced,
        });
        break;
      case "goal/set":
        rows.push({
          kind: "note",
          seq: event.seq,
          turn: turnIndex,
          text: event.goal === null ? "Goal cleared" : `Goal: ${event.goal}`,
          tone: "info",
        });
        break;
      case "error":
        rows.push({
          kind: "note",
          seq: event.seq,
          turn: turnIndex,
          text: `${event.code}: ${event.message}`,
          tone: "error",
        });
        break;
    }
  }
  flushPartial();
  return rows;
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
      return `error ${value.code}: ${value.message}`;
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
