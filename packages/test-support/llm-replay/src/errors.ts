import type { LlmRequest } from "@tapedeck/llm";
import { TapedeckError } from "@tapedeck/session";
import type { DiffEntry, RequestView } from "./request-diff";

/** Where a recorded model call sits in its log. */
export interface CallLocation {
  /** 0-based index among the recording's model calls. */
  callIndex: number;
  /** Number of model calls in the recording. */
  callCount: number;
  /** `requestId` of the recorded `model/request`. */
  requestId?: string;
  /** 1-based line of the `model/request` event in its log file. */
  line?: number;
  /** The log file, when the recording was loaded from one. */
  path?: string;
}

const mismatchMarker = "tapedeck.error.ReplayMismatchError";
const mismatchSymbol = Symbol.for(mismatchMarker);

/** A request differs from the recorded one at the same position. */
export class ReplayMismatchError extends TapedeckError {
  readonly [mismatchSymbol] = true;
  readonly callIndex: number;
  readonly line: number | undefined;
  readonly path: string | undefined;
  readonly requestId: string | undefined;
  readonly match: "strict" | "loose";
  /** What differs, as paths into the request (`input[3].content`, `model`, `tools`). */
  readonly diff: readonly DiffEntry[];
  readonly recorded: RequestView;
  readonly actual: RequestView;

  constructor(
    location: CallLocation,
    match: "strict" | "loose",
    diff: readonly DiffEntry[],
    views: { recorded: RequestView; actual: RequestView },
  ) {
    super("REPLAY_MISMATCH", formatMismatch(location, match, diff));
    this.name = "ReplayMismatchError";
    this.callIndex = location.callIndex;
    this.line = location.line;
    this.path = location.path;
    this.requestId = location.requestId;
    this.match = match;
    this.diff = diff;
    this.recorded = views.recorded;
    this.actual = views.actual;
  }

  /** The JSON body the replay server answers with (HTTP 409). */
  toJSON(): Record<string, unknown> {
    return {
      type: "replay_mismatch",
      code: "replay_mismatch",
      message: this.message,
      callIndex: this.callIndex,
      line: this.line ?? null,
      requestId: this.requestId ?? null,
      match: this.match,
      diff: this.diff,
    };
  }

  static override isInstance(error: unknown): error is ReplayMismatchError {
    return TapedeckError.hasMarker(error, mismatchMarker);
  }
}

function where(location: CallLocation): string {
  const parts: string[] = [];
  if (location.requestId !== undefined) parts.push(`requestId ${location.requestId}`);
  if (location.line !== undefined) {
    parts.push(
      `log line ${location.line}${location.path === undefined ? "" : ` of ${location.path}`}`,
    );
  }
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

function formatMismatch(location: CallLocation, match: string, diff: readonly DiffEntry[]): string {
  const lines = diff.map((entry) => `  ${formatEntry(entry)}`);
  return [
    `Replay mismatch on model call ${location.callIndex + 1} of ${location.callCount}${where(location)}, match "${match}": the request differs from the recording.`,
    ...lines,
  ].join("\n");
}

/** One diff entry as a line: `path: recorded X ≠ actual Y`. */
export function formatEntry(entry: DiffEntry): string {
  const note = entry.note === undefined ? "" : ` (${entry.note})`;
  if (!("recorded" in entry) && !("actual" in entry)) return `${entry.path}: ${entry.note ?? ""}`;
  if (!("recorded" in entry))
    return `${entry.path}: only in the actual request ${preview(entry.actual)}${note}`;
  if (!("actual" in entry))
    return `${entry.path}: only in the recording ${preview(entry.recorded)}${note}`;
  return `${entry.path}: recorded ${preview(entry.recorded)} ≠ actual ${preview(entry.actual)}${note}`;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

const exhaustedMarker = "tapedeck.error.ReplayExhaustedError";
const exhaustedSymbol = Symbol.for(exhaustedMarker);

/** A model call beyond the end of the recording (replay never wraps around). */
export class ReplayExhaustedError extends TapedeckError {
  readonly [exhaustedSymbol] = true;
  /** The request that found no recorded response. */
  readonly request: LlmRequest;
  readonly callCount: number;

  constructor(request: LlmRequest, callCount: number, path?: string) {
    const last = request.input.at(-1);
    super(
      "REPLAY_EXHAUSTED",
      `Replay exhausted: the recording${path === undefined ? "" : ` ${path}`} holds ${callCount} model call${callCount === 1 ? "" : "s"}, all used, and model call ${callCount + 1} arrived (model ${request.model}, ${request.input.length} input items, last ${JSON.stringify(last ?? null)?.slice(0, 120)}).`,
    );
    this.name = "ReplayExhaustedError";
    this.request = request;
    this.callCount = callCount;
  }

  /** The JSON body the replay server answers with (HTTP 409). */
  toJSON(): Record<string, unknown> {
    return {
      type: "replay_exhausted",
      code: "replay_exhausted",
      message: this.message,
      callCount: this.callCount,
    };
  }

  static override isInstance(error: unknown): error is ReplayExhaustedError {
    return TapedeckError.hasMarker(error, exhaustedMarker);
  }
}

/** A recorded call nobody asked for, as listed by {@link UnconsumedResponsesError}. */
export interface UnconsumedCall {
  callIndex: number;
  requestId: string;
  line: number | undefined;
  /** What the call would have answered: `text "…"`, `function_call ls(…)`, `error RATE_LIMIT`. */
  summary: string;
}

const unconsumedMarker = "tapedeck.error.UnconsumedResponsesError";
const unconsumedSymbol = Symbol.for(unconsumedMarker);

/** The test ended with recorded model calls left over: the agent made fewer calls than recorded. */
export class UnconsumedResponsesError extends TapedeckError {
  readonly [unconsumedSymbol] = true;
  readonly unconsumed: readonly UnconsumedCall[];

  constructor(unconsumed: readonly UnconsumedCall[], callCount: number, path?: string) {
    super(
      "REPLAY_UNCONSUMED",
      [
        `${unconsumed.length} of ${callCount} recorded model call${callCount === 1 ? " was" : "s were"} never requested${path === undefined ? "" : ` from ${path}`}:`,
        ...unconsumed.map(
          (call) =>
            `  call ${call.callIndex + 1} (requestId ${call.requestId}${call.line === undefined ? "" : `, log line ${call.line}`}): ${call.summary}`,
        ),
      ].join("\n"),
    );
    this.name = "UnconsumedResponsesError";
    this.unconsumed = unconsumed;
  }

  static override isInstance(error: unknown): error is UnconsumedResponsesError {
    return TapedeckError.hasMarker(error, unconsumedMarker);
  }
}

const recordingMarker = "tapedeck.error.RecordingError";
const recordingSymbol = Symbol.for(recordingMarker);

/** A log that replays fine but cannot serve as a recording (e.g. a fork whose parent is missing). */
export class RecordingError extends TapedeckError {
  readonly [recordingSymbol] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super("RECORDING_INVALID", message, options);
    this.name = "RecordingError";
  }

  static override isInstance(error: unknown): error is RecordingError {
    return TapedeckError.hasMarker(error, recordingMarker);
  }
}
