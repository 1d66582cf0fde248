/**
 * Builds the timeline rows (see `timeline.ts`) from events, incrementally: the session page feeds
 * it the session once, then only the events its stream delivers, and each batch costs the new
 * events, not the session. Pure: no DOM, unit-tested (an incremental build equals a full one).
 */
import { type KnownSessionEvent, normalizeErrorCode, type SessionEvent } from "@tapedeck/session";
import { known, type TimelineRow, type ToolRow } from "./timeline";

type TurnRow = Extract<TimelineRow, { kind: "turn" }>;
type ModelRow = Extract<TimelineRow, { kind: "model" }>;
/** The event of one `type`. */
type EventOf<T extends KnownSessionEvent["type"]> = Extract<KnownSessionEvent, { type: T }>;
/** Rows an event can replace (a compaction's `replaces`). */
type ReplaceableRow = Extract<TimelineRow, { replacedBy: number | null }>;

/**
 * Folds events into rows. Rows are appended and updated in place (a turn's end, a tool's output,
 * a row replaced by a later compaction); {@link TimelineBuilder.rows} returns a new array each
 * time, so a renderer sees the change.
 */
export class TimelineBuilder {
  readonly #rows: TimelineRow[] = [];
  readonly #replacedBy: ReadonlyMap<number, number>;
  /** Text of chunks left out of the first batch (the server's `streamedText`); later chunks are new. */
  #streamedText: ReadonlyMap<string, string>;
  readonly #tools = new Map<string, ToolRow>();
  readonly #models = new Map<string, ModelRow>();
  /** Rows by seq, for a later event that replaces them. */
  readonly #replaceable = new Map<number, ReplaceableRow>();
  #turnIndex = 0;
  #turnRow: TurnRow | null = null;
  /** Text streamed per request in the open turn. */
  #streamed = new Map<string, string>();
  #completedRequests = new Set<string>();

  /** True when the first events come after others not held (a page of a longer session). */
  readonly #partOfSession: boolean;

  /**
   * `replacedBy` maps a seq to the event that replaced it (for the events of the first batch;
   * replacements that come later are read from the events). `streamedText` gives each request's
   * streamed text when the first batch leaves out `assistant/chunk` events. `turnsBefore`: the
   * turns that start before the first event held, when the builder starts at a page of the
   * session rather than its first event (turns keep their numbers; no seed row).
   */
  constructor(
    replacedBy: ReadonlyMap<number, number>,
    streamedText: ReadonlyMap<string, string> = new Map(),
    turnsBefore?: number,
  ) {
    this.#replacedBy = replacedBy;
    this.#streamedText = streamedText;
    this.#partOfSession = turnsBefore !== undefined;
    this.#turnIndex = turnsBefore ?? 0;
  }

  /** Applies events in seq order, after every event added before. */
  add(events: readonly SessionEvent[]): void {
    for (const event of events) this.#apply(event);
    this.#streamedText = new Map();
  }

  /**
   * The rows so far. An answer still streaming (or one whose run ended mid-answer) shows as a
   * partial message right after its model call until its message arrives.
   */
  rows(): TimelineRow[] {
    const rows = this.#rows.slice();
    for (const [at, partial] of this.#partials(rows)) rows.splice(at, 0, partial);
    return rows;
  }

  /** Partial rows of the open turn with where each goes, last position first. */
  #partials(rows: readonly TimelineRow[]): Array<[number, TimelineRow]> {
    const placed: Array<[number, TimelineRow]> = [];
    for (const [requestId, text] of this.#streamed) {
      if (this.#completedRequests.has(requestId) || text === "") continue;
      const modelRow = this.#models.get(requestId);
      const at = modelRow === undefined ? -1 : rows.lastIndexOf(modelRow);
      placed.push([
        at === -1 ? rows.length : at + 1,
        {
          kind: "message",
          seq: modelRow?.seq ?? this.#turnRow?.seq ?? 0,
          turn: this.#turnIndex,
          role: "assistant",
          content: text,
          replacedBy: null,
          partial: true,
        },
      ]);
    }
    // Splicing from the end keeps the earlier positions valid; equal positions keep their order.
    return placed
      .map((entry, order) => ({ entry, order }))
      .sort((a, b) => b.entry[0] - a.entry[0] || b.order - a.order)
      .map(({ entry }) => entry);
  }

  /** A turn boundary: the open turn's unfinished answers become rows for good. */
  #closeStreams(): void {
    for (const [at, partial] of this.#partials(this.#rows)) this.#rows.splice(at, 0, partial);
    this.#streamed = new Map();
    this.#completedRequests = new Set();
  }

  #push(row: TimelineRow): void {
    this.#rows.push(row);
    if ("replacedBy" in row) this.#replaceable.set(row.seq, row);
  }

  #apply(raw: SessionEvent): void {
    const event = known(raw);
    if (event === null) return;
    if (this.#turnRow === null && event.type !== "turn/start") {
      // The seed, or, on a page that starts inside a turn, the rest of that turn.
      this.#turnRow = newTurnRow(event.seq, this.#turnIndex, null, !this.#partOfSession);
      this.#push(this.#turnRow);
    }
    const replaced = this.#replacedBy.get(event.seq) ?? null;
    switch (event.type) {
      case "turn/start":
        this.#closeStreams();
        this.#turnIndex += 1;
        this.#turnRow = newTurnRow(event.seq, this.#turnIndex, event);
        this.#push(this.#turnRow);
        break;
      case "turn/end":
        this.#endTurn(event);
        break;
      case "message":
        this.#message(event, replaced);
        break;
      case "assistant/chunk":
        // Chunks the first batch's `streamedText` already counts are not counted twice.
        if ("text" in event.delta && !this.#streamedText.has(event.requestId)) {
          this.#streamed.set(
            event.requestId,
            (this.#streamed.get(event.requestId) ?? "") + event.delta.text,
          );
        }
        break;
      case "model/request":
        this.#modelRequest(event);
        break;
      case "model/response":
        this.#modelResponse(event);
        break;
      case "function_call": {
        const row: ToolRow = {
          kind: "tool",
          seq: event.seq,
          turn: this.#turnIndex,
          call: event,
          output: null,
          approval: { requested: false, decision: null },
          replacedBy: replaced,
        };
        this.#tools.set(event.callId, row);
        this.#push(row);
        break;
      }
      case "function_call_output":
        this.#toolOutput(event);
        break;
      case "approval/request": {
        const row = this.#tools.get(event.callId);
        if (row !== undefined) row.approval.requested = true;
        break;
      }
      case "approval/decision": {
        const row = this.#tools.get(event.callId);
        if (row !== undefined) row.approval.decision = event.decision;
        break;
      }
      case "compaction":
        this.#push({
          kind: "compaction",
          seq: event.seq,
          turn: this.#turnIndex,
          summary: event.summary,
          replaces: event.replaces ?? [],
          replacedBy: replaced,
        });
        break;
      case "goal/set":
        this.#note(event.seq, event.goal === null ? "Goal cleared" : `Goal: ${event.goal}`, "info");
        break;
      case "error":
        this.#note(event.seq, `${normalizeErrorCode(event.code)}: ${event.message}`, "error");
        break;
    }
    // The replayed session's rule (`SurfaceState`): each seq an event replaces is replaced by it.
    if (event.surfaceOp === "replace") {
      for (const seq of event.replaces ?? []) {
        const row = this.#replaceable.get(seq);
        if (row !== undefined) row.replacedBy = event.seq;
      }
    }
  }

  #note(seq: number, text: string, tone: "info" | "error"): void {
    this.#push({ kind: "note", seq, turn: this.#turnIndex, text, tone });
  }

  #endTurn(event: EventOf<"turn/end">): void {
    this.#closeStreams();
    const turnRow = this.#turnRow;
    if (turnRow === null) return;
    turnRow.end = event;
    const started = turnRow.start === null ? Number.NaN : Date.parse(turnRow.start.ts);
    const ended = Date.parse(event.ts);
    turnRow.durationMs =
      Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : null;
  }

  #message(event: EventOf<"message">, replaced: number | null): void {
    if (event.role === "assistant") {
      // The complete message follows its chunks; mark the latest streamed request complete.
      const last = [...this.#streamed.keys()].at(-1);
      if (last !== undefined) this.#completedRequests.add(last);
    }
    this.#push({
      kind: "message",
      seq: event.seq,
      turn: this.#turnIndex,
      role: event.role,
      content: event.content,
      ...(event.attachments === undefined ? {} : { attachments: event.attachments }),
      replacedBy: replaced,
      partial: false,
    });
  }

  #modelRequest(event: EventOf<"model/request">): void {
    if (this.#turnRow !== null) this.#turnRow.modelCalls += 1;
    // Chunks may have been left out of the events; their text comes with the session.
    const text = this.#streamedText.get(event.requestId);
    if (text !== undefined) this.#streamed.set(event.requestId, text);
    const row: ModelRow = {
      kind: "model",
      seq: event.seq,
      turn: this.#turnIndex,
      request: event,
      finishReason: null,
    };
    this.#models.set(event.requestId, row);
    this.#push(row);
  }

  #modelResponse(event: EventOf<"model/response">): void {
    const row = this.#models.get(event.requestId);
    if (row !== undefined) row.finishReason = event.finishReason;
    if (event.finishReason === "tool_calls" || event.finishReason === "cancelled") {
      this.#completedRequests.add(event.requestId);
    }
    const turnRow = this.#turnRow;
    if (turnRow !== null && event.usage !== undefined) {
      turnRow.usage = {
        inputTokens: turnRow.usage.inputTokens + event.usage.inputTokens,
        outputTokens: turnRow.usage.outputTokens + event.usage.outputTokens,
        cachedInputTokens:
          (turnRow.usage.cachedInputTokens ?? 0) + (event.usage.cachedInputTokens ?? 0),
      };
    }
  }

  #toolOutput(event: EventOf<"function_call_output">): void {
    const row = this.#tools.get(event.callId);
    if (row !== undefined) row.output = event;
    else if (this.#partOfSession) {
      // Its call may be in the part of the session not held.
      this.#note(
        event.seq,
        `Output for call ${event.callId} (made before the events shown): ${event.output}`,
        "info",
      );
    } else {
      this.#note(event.seq, `Output for unknown call ${event.callId}: ${event.output}`, "error");
    }
  }
}

function newTurnRow(
  seq: number,
  turn: number,
  start: TurnRow["start"],
  seed = start === null,
): TurnRow {
  return {
    kind: "turn",
    seq,
    turn,
    start,
    end: null,
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    modelCalls: 0,
    durationMs: null,
    seed,
  };
}

/** Builds the rows of a whole session at once; `replacedBy` maps a seq to what replaced it. */
export function buildTimeline(
  events: readonly SessionEvent[],
  replacedBy: ReadonlyMap<number, number>,
  streamedText: ReadonlyMap<string, string> = new Map(),
): TimelineRow[] {
  const builder = new TimelineBuilder(replacedBy, streamedText);
  builder.add(events);
  return builder.rows();
}
