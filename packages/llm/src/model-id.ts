import { LlmConfigError, LlmError } from "./errors";
import { streamIdleTimeoutFromEnv } from "./idle-timeout";
import type { LlmProvider } from "./llm-provider";
import { createOpenAIChatProvider } from "./openai-chat";
import { createOpenAIResponsesProvider } from "./openai-responses";

/** The providers a model id may name. */
export const providerIds = ["openai", "openai-chat"] as const;
/** A provider a model id may name: `openai` (Responses API) or `openai-chat` (Chat Completions). */
export type ProviderId = (typeof providerIds)[number];

/** A model id split into provider and provider-local model name. */
export interface ModelId {
  provider: ProviderId;
  /** The model name the provider knows, e.g. `gpt-4.1-mini` or `qwen2.5-coder:7b`. */
  model: string;
}

/**
 * Parses a model id as users write it: `openai:gpt-4.1-mini`, `openai-chat:qwen2.5-coder`. Only the
 * first `:` separates the provider, so Ollama tags survive (`openai-chat:qwen2.5-coder:7b`). A
 * bare name (`gpt-4.1-mini`) means the `openai` provider.
 *
 * @throws LlmConfigError for an empty id, an empty model name or an unknown provider.
 */
export function parseModelId(modelId: string): ModelId {
  const text = modelId.trim();
  const colon = text.indexOf(":");
  const provider = colon === -1 ? "openai" : text.slice(0, colon);
  const model = colon === -1 ? text : text.slice(colon + 1);
  if (!isProviderId(provider)) {
    throw new LlmConfigError(
      `Unknown model provider ${JSON.stringify(provider)} in model id ${JSON.stringify(modelId)}: use openai:<model> for the OpenAI Responses API or openai-chat:<model> for a Chat Completions server.`,
    );
  }
  if (model === "") {
    throw new LlmConfigError(
      `Model id ${JSON.stringify(modelId)} names no model: write it as ${provider}:<model>, for example openai:gpt-4.1-mini.`,
    );
  }
  return { provider, model };
}

function isProviderId(value: string): value is ProviderId {
  return (providerIds as readonly string[]).includes(value);
}

/** Environment variables the providers read. */
export interface ProviderEnv {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  [name: string]: string | undefined;
}

/** Options of {@link resolveProvider} passed through to the provider. */
export interface ResolveProviderOptions {
  fetch?: typeof globalThis.fetch;
  maxRetries?: number;
}

/** A provider ready to stream, and the model name to put in its requests. */
export interface ResolvedProvider {
  provider: LlmProvider;
  /** Provider-local model name for `LlmRequest.model`. */
  model: string;
  /** The parsed model id. */
  modelId: ModelId;
}

/**
 * The provider for a model id, configured from the environment: `OPENAI_API_KEY` (required,
 * except for `openai-chat` with `OPENAI_BASE_URL` set: local servers take any key) and
 * `OPENAI_BASE_URL` (optional).
 *
 * @throws LlmConfigError for a malformed id; LlmError `auth` when the key is missing.
 */
export function resolveProvider(
  modelId: string,
  env: ProviderEnv = process.env,
  options: ResolveProviderOptions = {},
): ResolvedProvider {
  const parsed = parseModelId(modelId);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  let apiKey = nonEmpty(env.OPENAI_API_KEY);
  if (apiKey === undefined) {
    if (parsed.provider === "openai-chat" && baseURL !== undefined) {
      apiKey = "unused";
    } else {
      throw new LlmError(
        "AUTH",
        parsed.provider === "openai"
          ? `OPENAI_API_KEY is not set: set it to your OpenAI API key to use ${parsed.provider}:${parsed.model}.`
          : `OPENAI_API_KEY is not set: set it to use ${parsed.provider}:${parsed.model} with the OpenAI API, or set OPENAI_BASE_URL to your OpenAI-compatible server (for example http://127.0.0.1:11434/v1).`,
        { provider: parsed.provider },
      );
    }
  }
  const providerOptions = {
    apiKey,
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    streamIdleTimeoutMs: streamIdleTimeoutFromEnv(env),
  };
  const provider =
    parsed.provider === "openai"
      ? createOpenAIResponsesProvider(providerOptions)
      : createOpenAIChatProvider(providerOptions);
  return { provider, model: parsed.model, modelId: parsed };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
