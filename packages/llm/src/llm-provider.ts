import type { FinishReason, SurfaceItem, Usage } from "@tapedeck/session";

/** A tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One model call. */
export interface LlmRequest {
  /** Provider-local model name, e.g. `gpt-4.1-mini` (no `openai:` prefix). */
  model: string;
  /** System/developer instructions sent ahead of the input (goal included by the agent). */
  instructions?: string;
  /** The model-visible history: surface items of `@tapedeck/session`, in order. */
  input: readonly SurfaceItem[];
  tools: readonly ToolDefinition[];
  /** Upper bound on output tokens, if the caller wants one. */
  maxOutputTokens?: number;
}

/** An item the model produced. */
export type LlmOutputItem =
  | { type: "message"; role: "assistant"; content: string }
  | { type: "function_call"; callId: string; name: string; arguments: string };

/** A streamed fragment of assistant text. */
export interface TextDeltaPart {
  type: "text-delta";
  text: string;
}

/** A streamed fragment of a tool call (arguments arrive in pieces; `name` on the first). */
export interface ToolCallDeltaPart {
  type: "tool-call-delta";
  callId: string;
  name?: string;
  arguments: string;
}

/** The final part of every successful stream. */
export interface ResponsePart {
  type: "response";
  /** What the model produced; refusal text is never among them (see `refusal`). */
  items: LlmOutputItem[];
  finishReason: FinishReason;
  usage?: Usage;
  /**
   * Set when the model declined to answer: its refusal text, whole (OpenAI's `refusal` content
   * parts of the Responses API, `refusal` of Chat Completions). It is not assistant text, so no
   * `text-delta` carries it and no `message` item holds it; `finishReason` is what the API said
   * (normally `stop`).
   */
  refusal?: string;
}

/** What `LlmProvider.stream` yields: deltas, then exactly one `response`. */
export type LlmStreamPart = TextDeltaPart | ToolCallDeltaPart | ResponsePart;

/** Options of one `stream` call. */
export interface LlmStreamOptions {
  /** Aborting stops the HTTP stream; the iterator then throws `LlmError` with code `ABORTED`. */
  signal?: AbortSignal;
}

/**
 * A model behind one API. Implementations: `openai-responses`, `openai-chat` and, for tests,
 * `@tapedeck/llm-replay`'s replay provider.
 */
export interface LlmProvider {
  /** Provider id as written in model ids and logs: `openai`, `openai-chat`, `replay`. */
  readonly id: string;
  /**
   * Streams one model call. Yields `text-delta` and `tool-call-delta` parts in the order the model
   * sent them, then exactly one `response` part (with `refusal` when the model declined), then
   * ends.
   *
   * @throws LlmError (code `AUTH`, `RATE_LIMIT`, `CONTEXT_LENGTH`, `SERVER`, `NETWORK`, `ABORTED`,
   * `INVALID_REQUEST`) — never with an API key in its message. A stream that ends without its
   * final event is `NETWORK`.
   */
  stream(request: LlmRequest, options?: LlmStreamOptions): AsyncIterable<LlmStreamPart>;
}
