import type { FinishReason, Usage } from "@tapedeck/session";
import { LlmError } from "./errors";
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, IdleWatchdog } from "./idle-timeout";
import type {
  LlmOutputItem,
  LlmProvider,
  LlmRequest,
  LlmStreamOptions,
  ResponsePart,
} from "./llm-provider";
import { lazyClient, type OpenAIProviderOptions } from "./openai-client";
import { isAborted, toLlmError } from "./openai-errors";
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
  // The `openai` module is loaded by the first call, not by making the provider.
  const client = lazyClient(options);
  const id = "openai-chat";
  return {
    id,
    async *stream(request: LlmRequest, streamOptions: LlmStreamOptions = {}) {
      const { signal } = streamOptions;
      const openai = await client();
      const context = { provider: id, apiKey: options.apiKey, signal, baseURL: openai.baseURL };
      const calls = new Map<number, OpenCall>();
      let text: string | undefined;
      let refusal: string | undefined;
      let finish: string | undefined;
      let usage: Usage | undefined;
      const watchdog = new IdleWatchdog(
        options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
        signal,
      );
      try {
        if (signal?.aborted === true)
          throw new LlmError("ABORTED", "The model call was cancelled.");
        const tools = toChatTools(request.tools);
        const stream = await openai.chat.completions.create(
          {
            model: request.model,
            messages: toChatMessages(request),
            ...(tools.length === 0 ? {} : { tools }),
            ...(request.maxOutputTokens === undefined
              ? {}
              : { max_tokens: request.maxOutputTokens }),
            ...(options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
            stream: true,
          },
          watchdog.requestOptions(),
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
              yield {
                type: "tool-call-delta",
                callId: call.callId,
                name: call.name,
                arguments: piece,
              };
            } else if (piece !== "") {
              call.arguments += piece;
              yield { type: "tool-call-delta", callId: call.callId, arguments: piece };
            }
          }
          if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
            finish = choice.finish_reason;
          }
        }
      } catch (error) {
        throw watchdog.error(id) ?? toLlmError(error, context);
      } finally {
        watchdog.dispose();
      }
      if (isAborted(signal)) throw toLlmError(signal?.reason, context);
      const idle = watchdog.error(id);
      if (idle !== undefined) throw idle;
      if (finish === undefined) {
        throw new LlmError(
          "NETWORK",
          "The model stream ended before the response finished (no finish_reason).",
          { provider: id },
        );
      }
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
      yield part;
    },
  };
}

function finishReasonOf(finish: string, items: readonly LlmOutputItem[]): FinishReason {
  if (finish === "length") return "length";
  if (finish === "content_filter") return "error";
  return items.some((item) => item.type === "function_call") ? "tool_calls" : "stop";
}
