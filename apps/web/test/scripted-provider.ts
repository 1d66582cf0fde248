import type { LlmProvider, LlmRequest, LlmStreamPart } from "@tapedeck/llm";

/** One scripted model call: parts to stream, or `"hang"` to wait until the run is cancelled. */
export type ScriptedCall = readonly LlmStreamPart[] | "hang";

/**
 * A provider that answers each call with the next scripted response and records the requests it
 * saw. It fails loudly when asked for more calls than were scripted.
 */
export function scriptedProvider(
  calls: readonly ScriptedCall[],
): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  let next = 0;
  return {
    id: "scripted",
    requests,
    async *stream(request, options = {}) {
      requests.push(request);
      const call = calls[next];
      next += 1;
      if (call === undefined) throw new Error(`scriptedProvider: unexpected model call ${next}`);
      if (call === "hang") {
        yield { type: "text-delta", text: "Thinking" };
        await new Promise<void>((_, reject) => {
          const abort = () => reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
          if (options.signal?.aborted) abort();
          options.signal?.addEventListener("abort", abort, { once: true });
        });
        return;
      }
      for (const part of call) {
        await new Promise((resolve) => setImmediate(resolve));
        yield part;
      }
    },
  };
}

/** A text answer streamed in the given pieces. */
export function textAnswer(...pieces: string[]): LlmStreamPart[] {
  return [
    ...pieces.map((text) => ({ type: "text-delta" as const, text })),
    {
      type: "response",
      items: [{ type: "message", role: "assistant", content: pieces.join("") }],
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: pieces.length },
    },
  ];
}

/** One tool call. */
export function toolCall(callId: string, name: string, args: unknown): LlmStreamPart[] {
  const text = JSON.stringify(args);
  return [
    { type: "tool-call-delta", callId, name, arguments: text },
    {
      type: "response",
      items: [{ type: "function_call", callId, name, arguments: text }],
      finishReason: "tool_calls",
      usage: { inputTokens: 12, outputTokens: 3 },
    },
  ];
}
