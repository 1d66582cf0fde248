import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type LlmErrorCode, type LlmOutputItem, llmErrorCodes } from "@tapedeck/llm";
import {
  type FinishReason,
  isSurfaceEvent,
  normalizeErrorCode,
  parseHeaderLine,
  replayEvents,
  replayLogText,
  type Session,
  type SessionEvent,
  type SessionHeader,
  type SurfaceItem,
  type TextDelta,
  type ToolCallDelta,
  toSurfaceItem,
  type Usage,
} from "@tapedeck/session";
import { RecordingError } from "./errors";

/** One streamed chunk of a recorded call, exactly as logged. */
export interface RecordedChunk {
  delta: TextDelta | ToolCallDelta;
  /** The chunk event's timestamp (drives `timing: "recorded"`). */
  ts: string;
}

/** How a recorded call ended. */
export type RecordedOutcome =
  | {
      type: "response";
      finishReason: Exclude<FinishReason, "cancelled">;
      usage?: Usage;
      /** The assistant message / function calls the agent logged for this call. */
      items: LlmOutputItem[];
      /**
       * The model declined: `model/response.refusal`. Replays as refusal content, not text; the
       * assistant message the agent logged with the same words is not among `items`.
       */
      refusal?: string;
      ts: string;
    }
  /** `model/response` with `finishReason: "error"` and an `error`: replays as that error. */
  | { type: "error"; code: LlmErrorCode; message: string; status?: number; ts: string }
  /** `finishReason: "cancelled"`: the live run aborted the call. */
  | { type: "cancelled"; ts: string }
  /** No `model/response` at all: the stream died with the process; replays as a dropped stream. */
  | { type: "dropped" };

/** One model call of a recording: `model/request` … `assistant/chunk`* … `model/response`. */
export interface RecordedCall {
  /** 0-based position among the recording's calls. */
  index: number;
  requestId: string;
  /** seq of the `model/request`. */
  seq: number;
  /** 1-based line of the `model/request` in its file. */
  line: number;
  provider: string;
  /** Provider-local model name (a `provider:` prefix, if logged, is removed). */
  model: string;
  inputDigest: string;
  toolsDigest: string;
  /** Tool names, when the log has them (`model/request.toolNames`, written by scripted logs). */
  toolNames: string[] | undefined;
  /** The surface items sent, rebuilt from `inputItems` (seqs of the log). */
  input: SurfaceItem[];
  /** Timestamp of the `model/request`. */
  ts: string;
  chunks: RecordedChunk[];
  outcome: RecordedOutcome;
}

/** The model calls of one session log, in order. */
export interface Recording {
  header: SessionHeader;
  /** The log file, when loaded from one. */
  path: string | undefined;
  calls: RecordedCall[];
}

/** A log already in memory. */
export interface RecordingEvents {
  header: SessionHeader;
  /** The log's own events (for a fork: without the parent prefix). */
  events: readonly SessionEvent[];
  /** For a fork: the parent's events from seq 1 (at least up to the fork point). */
  parentEvents?: readonly SessionEvent[];
  path?: string;
}

/** Options of {@link loadRecording}. */
export interface LoadRecordingOptions {
  /**
   * For a fork: the parent's events, or the parent log's path or JSONL text. Default: the file
   * `<parent sessionId>.jsonl` next to the fork's file (the store's layout).
   */
  parent?: readonly SessionEvent[] | string;
}

/**
 * The model calls recorded in a session log. The log is replay-validated with
 * `@tapedeck/session` first, so a damaged log never becomes a recording.
 *
 * `source` is a file path, the JSONL text itself (anything starting with `{`), or a log in memory.
 *
 * @throws EventLogCorruptError for a log that breaks the format; RecordingError for a fork whose
 * parent cannot be found.
 */
export function loadRecording(
  source: string | RecordingEvents | Recording,
  options: LoadRecordingOptions = {},
): Recording {
  if (typeof source !== "string") {
    if ("calls" in source) return source;
    const parentEvents = source.parentEvents ?? resolveParent(source.header, options, undefined);
    const session = replayEvents(
      source.header,
      source.events,
      parentEvents === undefined ? {} : { parentEvents },
    );
    return extractCalls(session, source.path);
  }
  const isText = source.trimStart().startsWith("{");
  const path = isText ? undefined : source;
  const text = isText ? source : readLog(source);
  const header = headerOf(text);
  const parentEvents = resolveParent(header, options, path);
  const session = replayLogText(text, parentEvents === undefined ? {} : { parentEvents });
  return extractCalls(session, path);
}

function readLog(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new RecordingError(`Cannot read the recording ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The header of a log text, leniently: replayLogText validates it properly afterwards. */
function headerOf(text: string): SessionHeader | undefined {
  const newline = text.indexOf("\n");
  try {
    return parseHeaderLine(text.slice(0, newline === -1 ? text.length : newline));
  } catch {
    return undefined;
  }
}

function resolveParent(
  header: SessionHeader | undefined,
  options: LoadRecordingOptions,
  path: string | undefined,
): readonly SessionEvent[] | undefined {
  const parent = header?.parent;
  if (parent === undefined) return undefined;
  if (options.parent !== undefined && typeof options.parent !== "string") return options.parent;
  let source = options.parent;
  if (source === undefined) {
    const sibling =
      path === undefined ? undefined : join(dirname(path), `${parent.sessionId}.jsonl`);
    if (sibling === undefined || !existsSync(sibling)) {
      throw new RecordingError(
        `The log is a fork of session ${parent.sessionId} at seq ${parent.seq}; pass the parent log as options.parent${sibling === undefined ? "" : ` (looked for ${sibling})`}.`,
      );
    }
    source = sibling;
  }
  const text = source.trimStart().startsWith("{") ? source : readLog(source);
  const parentHeader = headerOf(text);
  const grandparent = resolveParent(
    parentHeader,
    {},
    source.trimStart().startsWith("{") ? undefined : source,
  );
  return replayLogText(text, grandparent === undefined ? {} : { parentEvents: grandparent }).events;
}

/** The calls of a replayed session (only its own events; a fork's parent calls are not replayed). */
export function extractCalls(session: Session, path?: string): Recording {
  const base = session.header.parent?.seq ?? 0;
  const bySeq = new Map<number, SessionEvent>();
  for (const event of session.events) bySeq.set(event.seq, event);
  const calls: RecordedCall[] = [];
  const open = new Map<string, RecordedCall>();
  const logged = new Map<RecordedCall, LlmOutputItem[]>();
  let latest: RecordedCall | undefined;
  for (const event of session.events) {
    if (event.seq <= base) continue;
    switch (event.type) {
      case "model/request": {
        const call: RecordedCall = {
          index: calls.length,
          requestId: event.requestId,
          seq: event.seq,
          line: event.seq - base + 1,
          provider: event.provider,
          model: localModel(event.model, event.provider),
          inputDigest: event.inputDigest,
          toolsDigest: event.toolsDigest,
          toolNames: toolNamesOf(event),
          input: event.inputItems.flatMap((seq) => {
            const item = bySeq.get(seq);
            return item !== undefined && isSurfaceEvent(item) ? [toSurfaceItem(item)] : [];
          }),
          ts: event.ts,
          chunks: [],
          outcome: { type: "dropped" },
        };
        calls.push(call);
        logged.set(call, []);
        open.set(call.requestId, call);
        latest = call;
        break;
      }
      case "assistant/chunk":
        open.get(event.requestId)?.chunks.push({ delta: event.delta, ts: event.ts });
        break;
      case "model/response": {
        const call = open.get(event.requestId);
        if (call === undefined) break;
        call.outcome = outcomeOf(event);
        break;
      }
      case "message":
        if (event.role === "assistant" && latest !== undefined) {
          logged.get(latest)?.push({ type: "message", role: "assistant", content: event.content });
        }
        break;
      case "function_call":
        if (latest !== undefined) {
          // Replay what the provider said: its own id, even where the session renamed the call.
          logged.get(latest)?.push({
            type: "function_call",
            callId: event.providerCallId ?? event.callId,
            name: event.name,
            arguments: event.arguments,
          });
        }
        break;
      case "turn/end":
      case "turn/start":
        latest = undefined;
        break;
    }
  }
  for (const call of calls) {
    if (call.outcome.type !== "response") continue;
    const items = withoutRefusalMessage(logged.get(call) ?? [], call.outcome.refusal);
    // Items the agent logged are the truth; a log without them still has the chunks.
    call.outcome.items = items.length > 0 ? items : itemsFromChunks(call.chunks);
  }
  return { header: session.header, path, calls };
}

/**
 * The agent logs a refusal as an assistant message after the call's own items (so the history
 * shows it); that message is the refusal, not output to replay as text.
 */
function withoutRefusalMessage(
  items: readonly LlmOutputItem[],
  refusal: string | undefined,
): LlmOutputItem[] {
  if (refusal === undefined) return [...items];
  const at = items.findLastIndex((item) => item.type === "message" && item.content === refusal);
  return at === -1 ? [...items] : items.filter((_, index) => index !== at);
}

function outcomeOf(event: Extract<SessionEvent, { type: "model/response" }>): RecordedOutcome {
  if (event.finishReason === "cancelled") return { type: "cancelled", ts: event.ts };
  if (event.finishReason === "error" && event.error !== undefined) {
    // Logs written before codes became UPPER_SNAKE hold `RATE_LIMIT`: both replay the same.
    const recorded = normalizeErrorCode(event.error.code ?? "");
    const code = (llmErrorCodes as readonly string[]).includes(recorded)
      ? (recorded as LlmErrorCode)
      : "SERVER";
    const status = (event.error as { status?: unknown }).status;
    return {
      type: "error",
      code,
      message: event.error.message,
      ts: event.ts,
      ...(typeof status === "number" ? { status } : {}),
    };
  }
  return {
    type: "response",
    finishReason: event.finishReason,
    items: [],
    ts: event.ts,
    ...(event.usage === undefined ? {} : { usage: event.usage }),
    ...(event.refusal === undefined ? {} : { refusal: event.refusal }),
  };
}

/** The output items a chunk sequence adds up to (text first, then calls in first-seen order). */
export function itemsFromChunks(chunks: readonly RecordedChunk[]): LlmOutputItem[] {
  let text: string | undefined;
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const { delta } of chunks) {
    if (isToolCallDelta(delta)) {
      const call = calls.get(delta.callId) ?? { name: "", arguments: "" };
      if (delta.name !== undefined) call.name = delta.name;
      call.arguments += delta.arguments;
      calls.set(delta.callId, call);
    } else {
      text = (text ?? "") + delta.text;
    }
  }
  const items: LlmOutputItem[] = [];
  if (text !== undefined) items.push({ type: "message", role: "assistant", content: text });
  for (const [callId, call] of calls) items.push({ type: "function_call", callId, ...call });
  return items;
}

function localModel(model: string, provider: string): string {
  return model.startsWith(`${provider}:`) ? model.slice(provider.length + 1) : model;
}

function toolNamesOf(event: SessionEvent): string[] | undefined {
  const names = (event as { toolNames?: unknown }).toolNames;
  return Array.isArray(names) && names.every((name) => typeof name === "string")
    ? names
    : undefined;
}

/** True for a tool-call fragment (a text fragment has no `callId`). */
export function isToolCallDelta(delta: TextDelta | ToolCallDelta): delta is ToolCallDelta {
  return typeof (delta as { callId?: unknown }).callId === "string";
}
