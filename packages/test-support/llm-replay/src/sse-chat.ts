import type { Usage } from "@tapedeck/session";
import { isToolCallDelta, type RecordedCall } from "./recording";
import type { EchoFields, StreamPlan } from "./sse-responses";
import { wireErrorFor } from "./wire-errors";

const finishReasons = {
  stop: "stop",
  tool_calls: "tool_calls",
  length: "length",
  error: "content_filter",
} as const;

function wireUsage(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
  };
}

/**
 * The SSE frames of a recorded call in the Chat Completions streaming format: `data:` lines of
 * `chat.completion.chunk` objects (a role chunk, one chunk per recorded chunk with
 * `delta.content` or `delta.tool_calls[index]`, a `delta.refusal` chunk for a refusal, a finish chunk, the usage chunk when the request
 * asked for it), then `data: [DONE]`. A recorded error after some chunks is a `data:` frame with
 * an `error` object, as OpenAI sends it.
 */
export function chatStreamPlan(
  call: RecordedCall,
  echo: EchoFields,
  includeUsage: boolean,
): StreamPlan {
  const base = {
    id: `chatcmpl-${call.requestId}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.parse(call.ts) / 1000),
    model: echo.model,
    system_fingerprint: null,
  };
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  const head = frame([choice({ role: "assistant", content: "", refusal: null })]);
  const indexes = new Map<string, number>();
  const chunk = (position: number): string => {
    const { delta } = call.chunks[position]!;
    if (!isToolCallDelta(delta)) return frame([choice({ content: delta.text })]);
    let index = indexes.get(delta.callId);
    if (index === undefined) {
      index = indexes.size;
      indexes.set(delta.callId, index);
      return frame([
        choice({
          tool_calls: [
            {
              index,
              id: delta.callId,
              type: "function",
              function: { name: delta.name ?? "", arguments: delta.arguments },
            },
          ],
        }),
      ]);
    }
    return frame([choice({ tool_calls: [{ index, function: { arguments: delta.arguments } }] })]);
  };
  const count = call.chunks.length;
  const { outcome } = call;
  if (outcome.type === "cancelled" || outcome.type === "dropped") {
    return { head, count, chunk, tail: () => null };
  }
  if (outcome.type === "error") {
    const wire = wireErrorFor(outcome.code, outcome.status);
    if (wire === undefined) return { head, count, chunk, tail: () => null };
    const error = { message: outcome.message, type: wire.type, code: wire.code, param: null };
    return { head, count, chunk, tail: () => `data: ${JSON.stringify({ error })}\n\n` };
  }
  // The log keeps a refusal whole, so it streams as one `delta.refusal` fragment.
  let tail = outcome.refusal === undefined ? "" : frame([choice({ refusal: outcome.refusal })]);
  tail += frame([choice({}, finishReasons[outcome.finishReason])]);
  if (includeUsage && outcome.usage !== undefined) {
    tail += `data: ${JSON.stringify({ ...base, choices: [], usage: wireUsage(outcome.usage) })}\n\n`;
  }
  const done = `${tail}data: [DONE]\n\n`;
  return { head, count, chunk, tail: () => done };
}

/** A whole `chat.completion` object for a non-streaming request. */
export function chatCompletion(call: RecordedCall, echo: EchoFields): Record<string, unknown> {
  const { outcome } = call;
  if (outcome.type !== "response") throw new Error("chatCompletion needs a recorded response");
  const text = outcome.items.find((item) => item.type === "message");
  const calls = outcome.items.flatMap((item) =>
    item.type === "function_call"
      ? [
          {
            id: item.callId,
            type: "function",
            function: { name: item.name, arguments: item.arguments },
          },
        ]
      : [],
  );
  return {
    id: `chatcmpl-${call.requestId}`,
    object: "chat.completion",
    created: Math.floor(Date.parse(call.ts) / 1000),
    model: echo.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text?.type === "message" ? text.content : null,
          refusal: outcome.refusal ?? null,
          ...(calls.length === 0 ? {} : { tool_calls: calls }),
        },
        logprobs: null,
        finish_reason: finishReasons[outcome.finishReason],
      },
    ],
    usage: outcome.usage === undefined ? null : wireUsage(outcome.usage),
  };
}
