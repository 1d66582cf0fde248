import type { LlmOutputItem } from "@tapedeck/llm";
import type { Usage } from "@tapedeck/session";
import { isToolCallDelta, type RecordedCall } from "./recording";
import { wireErrorFor } from "./wire-errors";

/**
 * The frames of one streamed answer, produced lazily so the first bytes leave before the rest is
 * serialized: `head`, then `chunk(0)` … `chunk(count - 1)` (in order), then `tail()`.
 */
export interface StreamPlan {
  head: string;
  /** Number of recorded chunks. */
  count: number;
  /** The frames of recorded chunk `index`; call in order. */
  chunk(index: number): string;
  /** Frames after the last chunk, or `null` to drop the connection there. */
  tail(): string | null;
}

/** What the request said that the answer echoes. */
export interface EchoFields {
  model: string;
  instructions?: string | undefined;
}

type OutputItem = Record<string, unknown> & { type: string };

/** A Responses API `Response` object. */
export function responseObject(
  call: RecordedCall,
  echo: EchoFields,
  fields: {
    status: string;
    output: OutputItem[];
    usage?: Usage | undefined;
    error?: unknown;
    incomplete?: string;
  },
): Record<string, unknown> {
  return {
    id: `resp_${call.requestId}`,
    object: "response",
    created_at: Math.floor(Date.parse(call.ts) / 1000),
    status: fields.status,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete === undefined ? null : { reason: fields.incomplete },
    instructions: echo.instructions ?? null,
    max_output_tokens: null,
    model: echo.model,
    output: fields.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: fields.usage === undefined ? null : wireUsage(fields.usage),
    metadata: {},
  };
}

function wireUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function messageItem(id: string, text: string, status: string): OutputItem {
  return {
    id,
    type: "message",
    status,
    role: "assistant",
    content:
      status === "in_progress"
        ? []
        : [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

function callItem(callId: string, name: string, args: string, status: string): OutputItem {
  return {
    id: `fc_${callId}`,
    type: "function_call",
    status,
    call_id: callId,
    name,
    arguments: args,
  };
}

/** A message whose only content is a refusal (how the Responses API says "no"). */
function refusalItem(id: string, refusal: string, status: string): OutputItem {
  return {
    id,
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "refusal", refusal }],
  };
}

/**
 * The output items of a finished call, in the shape `response.output` uses; a refusal is a last
 * message holding one `refusal` content part.
 */
export function outputItems(
  call: RecordedCall,
  items: readonly LlmOutputItem[],
  refusal?: string,
): OutputItem[] {
  const output = items.map((item) =>
    item.type === "message"
      ? messageItem(`msg_${call.requestId}`, item.content, "completed")
      : callItem(item.callId, item.name, item.arguments, "completed"),
  );
  if (refusal !== undefined) {
    output.push(refusalItem(`msg_${call.requestId}_refusal`, refusal, "completed"));
  }
  return output;
}

/**
 * The SSE frames of a recorded call in the Responses API's streaming format: `response.created`,
 * `response.in_progress`, per item `response.output_item.added` … deltas … `.done`, then
 * `response.completed` / `response.incomplete` / `response.failed`, each frame with its
 * `sequence_number`. One recorded chunk is one delta event.
 */
export function responsesStreamPlan(call: RecordedCall, echo: EchoFields): StreamPlan {
  let sequence = 0;
  const frame: Frame = (data) =>
    `event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`;
  const { outcome } = call;
  const inProgress = responseObject(call, echo, { status: "in_progress", output: [] });
  const head =
    frame({ type: "response.created", response: inProgress }) +
    frame({ type: "response.in_progress", response: inProgress });
  const plan = planState(call, frame);
  const chunk = (index: number) => chunkFrames(plan, index);
  const count = call.chunks.length;

  if (outcome.type === "cancelled" || outcome.type === "dropped") {
    return { head, count, chunk, tail: () => null };
  }
  if (outcome.type === "error") {
    const wire = wireErrorFor(outcome.code, outcome.status);
    if (wire === undefined) return { head, count, chunk, tail: () => null };
    const error = { code: wire.code, message: outcome.message };
    const failedTail = () => {
      const failed = responseObject(call, echo, {
        status: "failed",
        output: plan.done.filter(Boolean),
        error,
      });
      return frame({ type: "response.failed", response: failed });
    };
    return { head, count, chunk, tail: failedTail };
  }
  return { head, count, chunk, tail: () => completedTail(plan, echo, outcome) };
}

/** Writes one SSE frame, numbering it in the stream. */
type Frame = (data: Record<string, unknown> & { type: string }) => string;

/** An output item opened by its first chunk: its place in `output` and what streamed so far. */
interface OpenItem {
  outputIndex: number;
  text: string;
  name: string;
}

/** What the frames of one streamed response share. */
interface PlanState {
  call: RecordedCall;
  frame: Frame;
  messageId: string;
  /** Output item key (a call id, or `""` for the message) → the index of its last chunk. */
  lastChunk: Map<string, number>;
  opened: Map<string, OpenItem>;
  /** Items closed so far, at their output index. */
  done: OutputItem[];
}

function planState(call: RecordedCall, frame: Frame): PlanState {
  const lastChunk = new Map<string, number>();
  for (let index = 0; index < call.chunks.length; index += 1) {
    lastChunk.set(chunkKey(call, index), index);
  }
  return {
    call,
    frame,
    messageId: `msg_${call.requestId}`,
    lastChunk,
    opened: new Map(),
    done: [],
  };
}

/** Each output item opens at its first chunk and closes right after its last one. */
function chunkKey(call: RecordedCall, index: number): string {
  const delta = call.chunks[index]!.delta;
  return isToolCallDelta(delta) ? delta.callId : "";
}

/** A call's name: from its first chunk that names it, else from the final items. */
function callName(call: RecordedCall, callId: string): string {
  for (const chunk of call.chunks) {
    if (isToolCallDelta(chunk.delta) && chunk.delta.callId === callId) {
      if (chunk.delta.name !== undefined) return chunk.delta.name;
    }
  }
  const finalItems = call.outcome.type === "response" ? call.outcome.items : [];
  const item = finalItems.find(
    (candidate) => candidate.type === "function_call" && candidate.callId === callId,
  );
  return item?.type === "function_call" ? item.name : "";
}

/** The frames of chunk `index`: its item's opening when it is the first, the delta, the close. */
function chunkFrames(plan: PlanState, index: number): string {
  const { call, frame, messageId, opened } = plan;
  const key = chunkKey(call, index);
  const { delta } = call.chunks[index]!;
  const last = plan.lastChunk.get(key) === index;
  let frames = "";
  let item = opened.get(key);
  if (item === undefined) {
    const name = isToolCallDelta(delta) ? callName(call, delta.callId) : "";
    item = { outputIndex: opened.size, text: "", name };
    opened.set(key, item);
    if (isToolCallDelta(delta)) {
      frames += frame({
        type: "response.output_item.added",
        output_index: item.outputIndex,
        item: callItem(delta.callId, item.name, "", "in_progress"),
      });
    } else {
      frames += frame({
        type: "response.output_item.added",
        output_index: item.outputIndex,
        item: messageItem(messageId, "", "in_progress"),
      });
      frames += frame({
        type: "response.content_part.added",
        item_id: messageId,
        output_index: item.outputIndex,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
    }
  }
  return isToolCallDelta(delta)
    ? frames + callDeltaFrames(plan, item, delta.callId, delta.arguments, last)
    : frames + textDeltaFrames(plan, item, delta.text, last);
}

/** A tool call's arguments fragment, and the call's close after its last one. */
function callDeltaFrames(
  plan: PlanState,
  open: OpenItem,
  callId: string,
  fragment: string,
  last: boolean,
): string {
  const { frame } = plan;
  open.text += fragment;
  let frames = frame({
    type: "response.function_call_arguments.delta",
    item_id: `fc_${callId}`,
    output_index: open.outputIndex,
    delta: fragment,
  });
  if (!last) return frames;
  frames += frame({
    type: "response.function_call_arguments.done",
    item_id: `fc_${callId}`,
    output_index: open.outputIndex,
    name: open.name,
    arguments: open.text,
  });
  const item = callItem(callId, open.name, open.text, "completed");
  plan.done[open.outputIndex] = item;
  return (
    frames + frame({ type: "response.output_item.done", output_index: open.outputIndex, item })
  );
}

/** A text fragment of the message, and the message's close after its last one. */
function textDeltaFrames(plan: PlanState, open: OpenItem, fragment: string, last: boolean): string {
  const { frame, messageId } = plan;
  open.text += fragment;
  let frames = frame({
    type: "response.output_text.delta",
    item_id: messageId,
    output_index: open.outputIndex,
    content_index: 0,
    delta: fragment,
    logprobs: [],
  });
  if (!last) return frames;
  const text = open.text;
  const where = { item_id: messageId, output_index: open.outputIndex, content_index: 0 };
  frames += frame({ type: "response.output_text.done", ...where, text, logprobs: [] });
  frames += frame({
    type: "response.content_part.done",
    ...where,
    part: { type: "output_text", text, annotations: [] },
  });
  const item = messageItem(messageId, text, "completed");
  plan.done[open.outputIndex] = item;
  return (
    frames + frame({ type: "response.output_item.done", output_index: open.outputIndex, item })
  );
}

/** The frames after the last chunk of a response the model finished (completed or incomplete). */
function completedTail(
  plan: PlanState,
  echo: EchoFields,
  outcome: Extract<RecordedCall["outcome"], { type: "response" }>,
): string {
  const { call, frame, opened } = plan;
  // Items the log has but the chunks never streamed still appear, whole.
  let tail = "";
  const output = [...plan.done.filter(Boolean)];
  for (const item of outputItems(call, outcome.items)) {
    const key = item.type === "message" ? "" : String(item.call_id);
    if (opened.has(key)) continue;
    const outputIndex = output.length;
    tail += frame({
      type: "response.output_item.added",
      output_index: outputIndex,
      item: { ...item, status: "in_progress" },
    });
    tail += frame({ type: "response.output_item.done", output_index: outputIndex, item });
    output.push(item);
  }
  if (outcome.refusal !== undefined) {
    tail += refusalFrames(frame, `msg_${call.requestId}_refusal`, output.length, outcome.refusal);
    output.push(refusalItem(`msg_${call.requestId}_refusal`, outcome.refusal, "completed"));
  }
  const incomplete =
    outcome.finishReason === "length"
      ? "max_output_tokens"
      : outcome.finishReason === "error"
        ? "content_filter"
        : undefined;
  const final = responseObject(call, echo, {
    status: incomplete === undefined ? "completed" : "incomplete",
    output,
    usage: outcome.usage,
    ...(incomplete === undefined ? {} : { incomplete }),
  });
  tail += frame({
    type: incomplete === undefined ? "response.completed" : "response.incomplete",
    response: final,
  });
  return tail;
}

/**
 * A refusal as the Responses API streams it: a message item whose one content part is a
 * `refusal`, its text in one `response.refusal.delta` (the log keeps it whole), then `.done`.
 */
function refusalFrames(
  frame: (data: Record<string, unknown> & { type: string }) => string,
  id: string,
  outputIndex: number,
  refusal: string,
): string {
  const at = { item_id: id, output_index: outputIndex, content_index: 0 };
  return (
    frame({
      type: "response.output_item.added",
      output_index: outputIndex,
      item: refusalItem(id, refusal, "in_progress"),
    }) +
    frame({ type: "response.content_part.added", ...at, part: { type: "refusal", refusal: "" } }) +
    frame({ type: "response.refusal.delta", ...at, delta: refusal }) +
    frame({ type: "response.refusal.done", ...at, refusal }) +
    frame({ type: "response.content_part.done", ...at, part: { type: "refusal", refusal } }) +
    frame({
      type: "response.output_item.done",
      output_index: outputIndex,
      item: refusalItem(id, refusal, "completed"),
    })
  );
}
