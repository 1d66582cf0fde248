import type { FinishReason, Usage } from "@tapedeck/session";
import type {
  LlmOutputItem,
  LlmProvider,
  LlmRequest,
  LlmStreamPart,
  ResponsePart,
} from "./llm-provider";
import type { OpenAIProviderOptions } from "./openai-client";
import { type OpenAICall, openAIStreamProvider } from "./openai-stream";
import { toChatMessages, toChatTools } from "./wire-chat";

/** Options of the Chat Completions provider. */
export interface OpenAIChatProviderOptions extends OpenAIProviderOptions {
  /**
   * Ask for a final usage chunk (`stream_options.include_usage`); default true. Turn it off for a
   * server that rejects `stream_options`.
   */
  includeUsage?: boolean;
}

interface OpenCall {
  callId: string;
  name: string;
  arguments: string;
}

/**
 * Chat Completions (`POST /v1/chat/completions`, streaming) as an {@link LlmProvider} with id
 * `openai-chat`: for OpenAI-compatible servers such as vLLM, Ollama or LM Studio.
 */
export function createOpenAIChatProvider(options: OpenAIChatProviderOptions): LlmProvider {
  return openAIStreamProvider(
    "openai-chat",
    options,
    (call, request) => chatLoop(call, request, options.includeUsage !== false),
    "The model stream ended before the response finished (no finish_reason).",
  );
}

async function* chatLoop(
  { openai, requestOptions }: OpenAICall,
  request: LlmRequest,
  includeUsage: boolean,
): AsyncGenerator<LlmStreamPart, ResponsePart | undefined> {
  const calls = new Map<number, OpenCall>();
  let text: string | undefined;
  let refusal: string | undefined;
  let finish: string | undefined;
  let usage: Usage | undefined;
  const tools = toChatTools(request.tools);
  const stream = await openai.chat.completions.create(
    {
      model: request.model,
      messages: toChatMessages(request),
      ...(tools.length === 0 ? {} : { tools }),
      ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      stream: true,
    },
    requestOptions,
  );
  for await (const chunk of stream) {
    if (chunk.usage !== undefined && chunk.usage !== null) {
      usage = {
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
      };
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens;
      if (typeof cached === "number") usage.cachedInputTokens = cached;
    }
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const content = choice.delta?.content;
    // Servers open with an empty content delta next to the role; it carries no text.
    if (typeof content === "string" && content !== "") {
      text = (text ?? "") + content;
      yield { type: "text-delta", text: content };
    }
    // Refusal fragments are not assistant text: they reach the caller on the response part.
    const refused = choice.delta?.refusal;
    if (typeof refused === "string" && refused !== "") refusal = (refusal ?? "") + refused;
    for (const fragment of choice.delta?.tool_calls ?? []) {
      let call = calls.get(fragment.index);
      const piece = fragment.function?.arguments ?? "";
      if (call === undefined) {
        call = {
          callId: fragment.id ?? `call_${chunk.id}_${fragment.index}`,
          name: fragment.function?.name ?? "",
          arguments: piece,
        };
        calls.set(fragment.index, call);
        yield { type: "tool-call-delta", callId: call.callId, name: call.name, arguments: piece };
      } else if (piece !== "") {
        call.arguments += piece;
        yield { type: "tool-call-delta", callId: call.callId, arguments: piece };
      }
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
      finish = choice.finish_reason;
    }
  }
  if (finish === undefined) return undefined;
  const items: LlmOutputItem[] = [];
  if (text !== undefined) items.push({ type: "message", role: "assistant", content: text });
  for (const index of [...calls.keys()].sort((a, b) => a - b)) {
    const call = calls.get(index)!;
    items.push({
      type: "function_call",
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
    });
  }
  const part: ResponsePart = {
    type: "response",
    items,
    finishReason: finishReasonOf(finish, items),
  };
  if (usage !== undefined) part.usage = usage;
  if (refusal !== undefined) part.refusal = refusal;
  return part;
}

function finishReasonOf(finish: string, items: readonly LlmOutputItem[]): FinishReason {
  if (finish === "length") return "length";
  if (finish === "content_filter") return "error";
  return items.some((item) => item.type === "function_call") ? "tool_calls" : "stop";
}
