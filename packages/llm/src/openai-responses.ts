import type { FinishReason, Usage } from "@tapedeck/session";
import type OpenAI from "openai";
import { LlmError } from "./errors";
import type {
  LlmOutputItem,
  LlmProvider,
  LlmRequest,
  LlmStreamPart,
  ResponsePart,
} from "./llm-provider";
import type { OpenAIProviderOptions } from "./openai-client";
import { codeForProviderError, describe, redact } from "./openai-errors";
import { type OpenAICall, openAIStreamProvider } from "./openai-stream";
import { toResponsesInput, toResponsesTools } from "./wire-responses";

type ResponseObject = OpenAI.Responses.Response;

interface OpenCall {
  callId: string;
  name: string;
  nameSent: boolean;
}

/**
 * The OpenAI Responses API (`POST /v1/responses`, streaming) as an {@link LlmProvider} with id
 * `openai`. Requests are sent with `store: false`: the session log is the history.
 */
export function createOpenAIResponsesProvider(options: OpenAIProviderOptions): LlmProvider {
  return openAIStreamProvider(
    "openai",
    options,
    responsesLoop,
    "The model stream ended before the response completed (no response.completed event).",
  );
}

async function* responsesLoop(
  { openai, context, requestOptions }: OpenAICall,
  request: LlmRequest,
): AsyncGenerator<LlmStreamPart, ResponsePart | undefined> {
  const calls = new Map<string, OpenCall>();
  // Refusal text as streamed; the final response's refusal parts take precedence.
  let streamedRefusal = "";
  let final: ResponsePart | undefined;
  const stream = await openai.responses.create(
    {
      model: request.model,
      input: toResponsesInput(request.input),
      ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
      ...(request.tools.length === 0 ? {} : { tools: toResponsesTools(request.tools) }),
      ...(request.maxOutputTokens === undefined
        ? {}
        : { max_output_tokens: request.maxOutputTokens }),
      store: false,
      stream: true,
    },
    requestOptions,
  );
  for await (const event of stream) {
    switch (event.type) {
      case "response.output_text.delta":
        yield { type: "text-delta", text: event.delta };
        break;
      case "response.refusal.delta":
        // Not assistant text: it reaches the caller as `refusal` on the response part.
        streamedRefusal += event.delta;
        break;
      case "response.output_item.added":
        if (event.item.type === "function_call") {
          calls.set(event.item.id ?? event.item.call_id, {
            callId: event.item.call_id,
            name: event.item.name,
            nameSent: false,
          });
        }
        break;
      case "response.function_call_arguments.delta": {
        const call = calls.get(event.item_id);
        if (call === undefined) break;
        yield {
          type: "tool-call-delta",
          callId: call.callId,
          arguments: event.delta,
          ...(call.nameSent ? {} : { name: call.name }),
        };
        call.nameSent = true;
        break;
      }
      case "response.output_item.done":
        if (event.item.type === "function_call") {
          const call = calls.get(event.item.id ?? event.item.call_id);
          // A call whose arguments were never streamed still reaches the caller whole.
          if (call !== undefined && !call.nameSent) {
            yield {
              type: "tool-call-delta",
              callId: call.callId,
              name: call.name,
              arguments: event.item.arguments,
            };
            call.nameSent = true;
          }
        }
        break;
      case "response.completed":
      case "response.incomplete":
        final = finalPart(event.response);
        break;
      case "response.failed":
        throw failure(
          event.response.error?.code,
          event.response.error?.message ?? "response failed",
          context.apiKey,
        );
      case "error":
        throw failure(event.code ?? undefined, event.message, context.apiKey);
    }
  }
  if (final !== undefined && final.refusal === undefined && streamedRefusal !== "") {
    final.refusal = streamedRefusal;
  }
  return final;
}

function failure(providerCode: string | undefined, message: string, apiKey: string): LlmError {
  const code = codeForProviderError(undefined, providerCode, message);
  return new LlmError(code, redact(describe(code, undefined, message), apiKey), {
    provider: "openai",
    ...(providerCode === undefined ? {} : { providerCode }),
  });
}

function finalPart(response: ResponseObject): ResponsePart {
  const items: LlmOutputItem[] = [];
  const refusals: string[] = [];
  for (const item of response.output) {
    if (item.type === "message") {
      const texts: string[] = [];
      for (const part of item.content) {
        if (part.type === "output_text") texts.push(part.text);
        else refusals.push(part.refusal);
      }
      // A message that only refuses is the refusal, not an (empty) answer.
      if (texts.length > 0 || item.content.every((part) => part.type !== "refusal")) {
        items.push({ type: "message", role: "assistant", content: texts.join("") });
      }
    } else if (item.type === "function_call") {
      items.push({
        type: "function_call",
        callId: item.call_id,
        name: item.name,
        arguments: item.arguments,
      });
    }
  }
  const part: ResponsePart = {
    type: "response",
    items,
    finishReason: finishReasonOf(response, items),
  };
  const usage = usageOf(response.usage);
  if (usage !== undefined) part.usage = usage;
  if (refusals.length > 0) part.refusal = refusals.join("\n");
  return part;
}

function finishReasonOf(response: ResponseObject, items: readonly LlmOutputItem[]): FinishReason {
  if (response.status === "incomplete") {
    return response.incomplete_details?.reason === "max_output_tokens" ? "length" : "error";
  }
  return items.some((item) => item.type === "function_call") ? "tool_calls" : "stop";
}

function usageOf(usage: ResponseObject["usage"]): Usage | undefined {
  if (usage === undefined || usage === null) return undefined;
  const result: Usage = { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === "number") result.cachedInputTokens = cached;
  return result;
}
