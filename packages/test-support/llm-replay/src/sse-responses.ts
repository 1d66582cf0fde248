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
  const frame = (data: Record<string, unknown> & { type: string }) =>
    `event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`;
  const { outcome } = call;
  const finalItems = outcome.type === "response" ? outcome.items : [];
  const inProgress = responseObject(call, echo, { status: "in_progress", output: [] });
  const head =
    frame({ type: "response.created", response: inProgress }) +
    frame({ type: "response.in_progress", response: inProgress });

  // Each output item opens at its first chunk and closes right after its last one.
  const keyOf = (index: number) => {
    const delta = call.chunks[index]!.delta;
    return isToolCallDelta(delta) ? delta.callId : "";
  };
  const lastChunk = new Map<string, number>();
  for (let index = 0; index < call.chunks.length; index += 1) lastChunk.set(keyOf(index), index);
  const opened = new Map<string, { outputIndex: number; text: string; name: string }>();
  const done: OutputItem[] = [];
  const messageId = `msg_${call.requestId}`;
  const nameOf = (callId: string) => {
    for (const chunk of call.chunks) {
      if (
        isToolCallDelta(chunk.delta) &&
        chunk.delta.callId === callId &&
        chunk.delta.name !== undefined
      ) {
        return chunk.delta.name;
      }
    }
    const item = finalItems.find(
      (candidate) => candidate.type === "function_call" && candidate.callId === callId,
    );
    return item?.type === "function_call" ? item.name : "";
  };

  const chunk = (index: number): string => {
    const key = keyOf(index);
    let frames = "";
    let state = opened.get(key);
    const { delta } = call.chunks[index]!;
    if (state === undefined) {
      state = {
        outputIndex: opened.size,
        text: "",
        name: isToolCallDelta(delta) ? nameOf(delta.callId) : "",
      };
      opened.set(key, state);
      if (isToolCallDelta(delta)) {
        frames += frame({
          type: "response.output_item.added",
          output_index: state.outputIndex,
          item: callItem(delta.callId, state.name, "", "in_progress"),
        });
      } else {
        frames += frame({
          type: "response.output_item.added",
          output_index: state.outputIndex,
          item: messageItem(messageId, "", "in_progress"),
        });
        frames += frame({
          type: "response.content_part.added",
          item_id: messageId,
          output_index: state.outputIndex,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        });
      }
    }
    if (isToolCallDelta(delta)) {
      state.text += delta.arguments;
      frames += frame({
        type: "response.function_call_arguments.delta",
        item_id: `fc_${delta.callId}`,
        output_index: state.outputIndex,
        delta: delta.arguments,
      });
      if (lastChunk.get(key) === index) {
        frames += frame({
          type: "response.function_call_arguments.done",
          item_id: `fc_${delta.callId}`,
          output_index: state.outputIndex,
          name: state.name,
          arguments: state.text,
        });
        const item = callItem(delta.callId, state.name, state.text, "completed");
        done[state.outputIndex] = item;
        frames += frame({
          type: "response.output_item.done",
          output_index: state.outputIndex,
          item,
        });
      }
    } else {
      state.text += delta.text;
      frames += frame({
        type: "response.output_text.delta",
        item_id: messageId,
        output_index: state.outputIndex,
        content_index: 0,
        delta: delta.text,
        logprobs: [],
      });
      if (lastChunk.get(key) === index) {
        const text = state.text;
        frames += frame({
          type: "response.output_text.done",
          item_id: messageId,
          output_index: state.outputIndex,
          content_index: 0,
          text,
          logprobs: [],
        });
        frames += frame({
          type: "response.content_part.done",
          item_id: messageId,
          output_index: state.outputIndex,
          content_index: 0,
          part: { type: "output_text", text, annotations: [] },
        });
        const item = messageItem(messageId, text, "completed");
        done[state.outputIndex] = item;
        frames += frame({
          type: "response.output_item.done",
          output_index: state.outputIndex,
          item,
        });
      }
    }
    return frames;
  };
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
        output: done.filter(Boolean),
        error,
      });
      return frame({ type: "response.failed", response: failed });
    };
    return { head, count, chunk, tail: failedTail };
  }
  const completedTail = (): string => {
    // Items the log has but the chunks never streamed still appear, whole.
    let tail = "";
    const output = [...done.filter(Boolean)];
    for (const item of outputItems(call, finalItems)) {
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
  };
  return { head, count, chunk, tail: completedTail };
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
