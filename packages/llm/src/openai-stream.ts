import type OpenAI from "openai";
import { LlmError } from "./errors";
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, IdleWatchdog } from "./idle-timeout";
import type { LlmProvider, LlmRequest, LlmStreamPart, ResponsePart } from "./llm-provider";
import { lazyClient, type OpenAIProviderOptions } from "./openai-client";
import { type ErrorContext, isAborted, toLlmError } from "./openai-errors";

/** What one streamed call of an OpenAI API gives the wire-specific loop. */
export interface OpenAICall {
  /** The client (loaded on the provider's first call). */
  openai: OpenAI;
  /** For errors the loop raises itself: provider, key to scrub, signal, base URL. */
  context: ErrorContext;
  /** Options for the SDK request: the signal and the idle watchdog's byte reporting. */
  requestOptions: ReturnType<IdleWatchdog["requestOptions"]>;
}

/**
 * The wire-specific half of a provider: sends the request, yields text and tool-call deltas as
 * they stream, and returns the final part, or `undefined` when the stream ended before the
 * response finished.
 */
export type OpenAIStreamLoop = (
  call: OpenAICall,
  request: LlmRequest,
) => AsyncGenerator<LlmStreamPart, ResponsePart | undefined>;

/**
 * An {@link LlmProvider} over an OpenAI API, the lifecycle both wires share: the client made on
 * the first call, the idle watchdog, a cancelled call refused before it is sent, every failure
 * mapped to an {@link LlmError} (an abort or an idle timeout wins over the error it caused), and
 * a stream that ends without its final event reported as `NETWORK` with `unfinished` as message.
 */
export function openAIStreamProvider(
  id: string,
  options: OpenAIProviderOptions,
  loop: OpenAIStreamLoop,
  unfinished: string,
): LlmProvider {
  // The `openai` module is loaded by the first call, not by making the provider.
  const client = lazyClient(options);
  return {
    id,
    async *stream(request, streamOptions = {}) {
      const { signal } = streamOptions;
      const openai = await client();
      const context = { provider: id, apiKey: options.apiKey, signal, baseURL: openai.baseURL };
      const watchdog = new IdleWatchdog(
        options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
        signal,
      );
      let final: ResponsePart | undefined;
      try {
        if (signal?.aborted === true)
          throw new LlmError("ABORTED", "The model call was cancelled.");
        final = yield* loop(
          { openai, context, requestOptions: watchdog.requestOptions() },
          request,
        );
      } catch (error) {
        throw watchdog.error(id) ?? toLlmError(error, context);
      } finally {
        watchdog.dispose();
      }
      if (isAborted(signal)) throw toLlmError(signal?.reason, context);
      const idle = watchdog.error(id);
      if (idle !== undefined) throw idle;
      if (final === undefined) throw new LlmError("NETWORK", unfinished, { provider: id });
      yield final;
    },
  };
}
