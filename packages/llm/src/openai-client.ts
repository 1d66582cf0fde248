import OpenAI from "openai";

/** Options shared by both OpenAI providers. */
export interface OpenAIProviderOptions {
  /** API key. Never logged; scrubbed out of error messages. */
  apiKey: string;
  /** Base URL of the API, e.g. `http://127.0.0.1:11434/v1`; default the OpenAI API. */
  baseURL?: string;
  /** A fetch implementation (tests, proxies); default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Retries of the `openai` client on 408/409/429/5xx and connection errors; default 2. */
  maxRetries?: number;
  /** Request timeout in ms; default the client's (10 minutes). */
  timeout?: number;
}

/** The `openai` client for provider options. */
export function createClient(options: OpenAIProviderOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    maxRetries: options.maxRetries ?? 2,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  });
}
