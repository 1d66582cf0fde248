import { type ModelId, parseModelId, splitBaseUrl } from "@tapedeck/llm";
import { z } from "zod";

/**
 * The one model-id rule surfaces use (ACP `session/set_config_option`, the web's stateless
 * answer): `provider:model` (a bare name means `openai:`), the provider one Tapedeck knows and the
 * model named. Returns the parts; an app never splits an id itself.
 *
 * @throws LlmConfigError (code `LLM_CONFIG`) naming the id and how to write it.
 */
export function checkModelId(modelId: string): ModelId {
  return parseModelId(modelId);
}

/** Offered when the server has no model list (OpenAI's API: its common models). */
export const FALLBACK_OPENAI_MODELS = [
  "openai:gpt-4.1-mini",
  "openai:gpt-4.1",
  "openai:o4-mini",
  "openai:gpt-5-mini",
];

const modelListSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().min(1) })),
});

/** Where the model list comes from. */
export interface ModelListOptions {
  /** The configured model id (`openai-chat:qwen2.5-coder`): listed first, its provider prefixes the rest. */
  model: string;
  apiKey?: string;
  /** `OPENAI_BASE_URL`; default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Default 3 s: an editor waits for this list. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * The models to offer: the server's own list (`GET {baseUrl}/models`, what `models.list()` of the
 * OpenAI client calls), each as a model id with the configured provider, the configured model
 * first. When the server has no list endpoint (or no key, or it is slow) the fallback is the
 * configured model, plus OpenAI's common models when the provider is OpenAI's Responses API.
 */
export async function listModels(options: ModelListOptions): Promise<string[]> {
  const { provider } = checkModelId(options.model);
  const fallback =
    provider === "openai" && options.baseUrl === undefined
      ? [options.model, ...FALLBACK_OPENAI_MODELS]
      : [options.model];
  const split = splitBaseUrl(options.baseUrl ?? "https://api.openai.com/v1");
  const base = split.url.replace(/\/+$/, "");
  if (options.apiKey === undefined && options.baseUrl === undefined) return unique(fallback);
  try {
    const response = await (options.fetch ?? fetch)(`${base}/models`, {
      headers:
        split.authorization !== undefined
          ? { authorization: split.authorization }
          : options.apiKey === undefined
            ? {}
            : { authorization: `Bearer ${options.apiKey}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
    });
    if (!response.ok) return unique(fallback);
    const parsed = modelListSchema.safeParse(await response.json());
    if (!parsed.success || parsed.data.data.length === 0) return unique(fallback);
    return unique([options.model, ...parsed.data.data.map((entry) => `${provider}:${entry.id}`)]);
  } catch {
    return unique(fallback);
  }
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
