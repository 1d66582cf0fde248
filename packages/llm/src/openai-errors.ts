import type { APIError } from "openai";
import { LlmError, type LlmErrorCode } from "./errors";
import { openAIIfLoaded } from "./openai-client";

/** What the error mapper needs to know about the call that failed. */
export interface ErrorContext {
  /** Provider id for messages and `LlmError.provider`. */
  provider: string;
  /** The key to scrub out of any text that reaches the error. */
  apiKey: string;
  /** The call's signal: an abort wins over whatever error the abort caused. */
  signal?: AbortSignal | undefined;
  /** The server's base URL, named when it cannot be reached (a wrong `OPENAI_BASE_URL`). */
  baseURL?: string | undefined;
}

const contextPattern =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long/i;

/**
 * The {@link LlmError} for anything the `openai` client (or its fetch) threw. Messages are
 * redacted; the original error is attached as `cause` only when it carries no response text (a
 * provider's message may quote a key, e.g. "Incorrect API key provided: sk-…").
 */
export function toLlmError(error: unknown, context: ErrorContext): LlmError {
  if (LlmError.isInstance(error)) return error;
  const fields = { provider: context.provider };
  // The client's error classes (loaded with the client; before that no error can be one of them).
  const sdk = openAIIfLoaded();
  if (
    context.signal?.aborted === true ||
    (sdk !== undefined && error instanceof sdk.APIUserAbortError) ||
    isAbort(error)
  ) {
    return new LlmError("ABORTED", "The model call was cancelled.", fields);
  }
  if (sdk !== undefined && error instanceof sdk.APIConnectionError) {
    return new LlmError(
      "NETWORK",
      redact(
        `Could not reach the model server${context.baseURL === undefined ? "" : ` at ${context.baseURL}`}: ${error.message}`,
        context.apiKey,
      ),
      { ...fields, cause: error.cause ?? undefined },
    );
  }
  if (sdk !== undefined && error instanceof sdk.APIError) {
    const body = (error.error ?? {}) as { code?: unknown; type?: unknown; message?: unknown };
    const providerCode =
      typeof body.code === "string"
        ? body.code
        : typeof body.type === "string"
          ? body.type
          : undefined;
    const code = codeFor(sdk, error, providerCode);
    const status = typeof error.status === "number" ? error.status : undefined;
    const message =
      typeof body.message === "string" && body.message !== "" ? body.message : error.message;
    return new LlmError(code, redact(describe(code, status, message), context.apiKey), {
      ...fields,
      ...(status === undefined ? {} : { status }),
      ...(providerCode === undefined ? {} : { providerCode }),
      ...(error.requestID ? { requestId: error.requestID } : {}),
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError(
    "NETWORK",
    redact(`The model stream broke off: ${message}`, context.apiKey),
    fields,
  );
}

/** The code for a provider-reported failure (HTTP error, `response.failed`, stream `error`). */
export function codeForProviderError(
  status: number | undefined,
  providerCode: string | undefined,
  message: string,
): LlmErrorCode {
  if (status === 401 || status === 403) return "AUTH";
  if (
    status === 429 ||
    providerCode === "rate_limit_exceeded" ||
    providerCode === "insufficient_quota"
  ) {
    return "RATE_LIMIT";
  }
  if (providerCode === "context_length_exceeded" || contextPattern.test(message)) {
    return "CONTEXT_LENGTH";
  }
  if (providerCode === "invalid_api_key") return "AUTH";
  if (providerCode === "invalid_request_error" || providerCode === "invalid_prompt") {
    return "INVALID_REQUEST";
  }
  if (status === 408) return "NETWORK";
  if (status !== undefined && status >= 400 && status < 500 && status !== 409)
    return "INVALID_REQUEST";
  return "SERVER";
}

function codeFor(
  sdk: typeof import("openai"),
  error: APIError,
  providerCode: string | undefined,
): LlmErrorCode {
  if (error instanceof sdk.AuthenticationError || error instanceof sdk.PermissionDeniedError) {
    return "AUTH";
  }
  if (error instanceof sdk.RateLimitError) return "RATE_LIMIT";
  return codeForProviderError(
    typeof error.status === "number" ? error.status : undefined,
    providerCode,
    error.message,
  );
}

const labels: Record<LlmErrorCode, string> = {
  AUTH: "The model server refused the credentials",
  RATE_LIMIT: "The model server is rate limiting requests",
  CONTEXT_LENGTH: "The conversation is longer than the model's context window",
  SERVER: "The model server failed",
  NETWORK: "The connection to the model server failed",
  ABORTED: "The model call was cancelled",
  INVALID_REQUEST: "The model server rejected the request",
  IDLE_TIMEOUT: "The model server sent no data for too long",
};

/** A one-line message: what happened in plain words, then the server's own text. */
export function describe(code: LlmErrorCode, status: number | undefined, detail: string): string {
  const head = status === undefined ? labels[code] : `${labels[code]} (HTTP ${status})`;
  return detail === "" ? `${head}.` : `${head}: ${detail}`;
}

/**
 * Removes the API key (verbatim, when it has 4 characters or more) and anything shaped like an
 * OpenAI secret key (`sk-…`) from a text.
 */
export function redact(text: string, apiKey: string): string {
  let result = text;
  if (apiKey.length >= 4) result = result.split(apiKey).join("[redacted]");
  return result.replace(/\bsk-[A-Za-z0-9_*-]{4,}/g, "sk-[redacted]");
}

function isAbort(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError")
  );
}

/** True when the signal has fired (a function, so narrowing of an earlier check does not stick). */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
