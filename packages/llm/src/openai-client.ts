import type OpenAI from "openai";
import { watchedFetch } from "./idle-timeout";

type OpenAIModule = typeof import("openai");

let loading: Promise<OpenAIModule> | undefined;
let loaded: OpenAIModule | undefined;

/**
 * The `openai` module, imported when a provider first makes a call: commands that never call a
 * model (`tapedeck sessions …`, `--version`) neither read nor evaluate its ≈ 300 KB.
 */
export function loadOpenAI(): Promise<OpenAIModule> {
  loading ??= import("openai").then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/**
 * The `openai` module if a provider loaded it, else `undefined`: an error can only be one of the
 * client's once the client exists.
 */
export function openAIIfLoaded(): OpenAIModule | undefined {
  return loaded;
}

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
  /**
   * A stream that sends no data (no headers, no event) for this many ms fails with an
   * `LlmError` `IDLE_TIMEOUT` ("the model server sent no data for 120 s"); default 120 000
   * (`DEFAULT_STREAM_IDLE_TIMEOUT_MS`), 0 turns it off.
   */
  streamIdleTimeoutMs?: number;
}

/** A base URL without its `user:pass@` part, and the Basic authorization those credentials mean. */
export interface BaseUrlParts {
  /** The URL without credentials: what is requested, and what messages may name. */
  url: string;
  /** `Basic base64(user:pass)` when the URL held credentials. */
  authorization?: string;
}

/**
 * Splits credentials out of a base URL (`https://user:pass@proxy.example/v1`): fetch refuses a
 * URL that holds them, and they must never be printed or logged. They are sent as HTTP Basic
 * authorization instead (the API key's bearer header is replaced: such servers are proxies that
 * authenticate the connection themselves).
 */
export function splitBaseUrl(baseURL: string): BaseUrlParts {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return { url: baseURL };
  }
  if (url.username === "" && url.password === "") return { url: baseURL };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  return {
    url: url.toString().replace(/\/$/, baseURL.endsWith("/") ? "/" : ""),
    authorization: `Basic ${btoa(`${user}:${password}`)}`,
  };
}

/** The `openai` client for provider options, made on the first call of the returned function. */
export function lazyClient(options: OpenAIProviderOptions): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () => {
    client ??= createClient(options);
    return client;
  };
}

/** The `openai` client for provider options (loads the module). */
export async function createClient(options: OpenAIProviderOptions): Promise<OpenAI> {
  const { default: OpenAIClient } = await loadOpenAI();
  const base = options.baseURL === undefined ? undefined : splitBaseUrl(options.baseURL);
  return new OpenAIClient({
    apiKey: options.apiKey,
    maxRetries: options.maxRetries ?? 2,
    ...(base === undefined ? {} : { baseURL: base.url }),
    ...(base?.authorization === undefined
      ? {}
      : { defaultHeaders: { authorization: base.authorization } }),
    // Every response body reports its bytes to the call's idle watchdog.
    fetch: watchedFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  });
}
