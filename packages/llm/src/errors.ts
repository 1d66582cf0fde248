import { TapedeckError } from "@tapedeck/session";

/**
 * Why a model call failed. `INVALID_REQUEST` (a 400/404/422 that is not a context overflow: bad
 * model name, malformed tool schema) extends the six codes of the design so such a failure is
 * not reported as a server fault. `IDLE_TIMEOUT`: the stream sent no data for the idle timeout
 * (`TAPEDECK_STREAM_IDLE_TIMEOUT_MS`).
 */
export type LlmErrorCode =
  | "AUTH"
  | "RATE_LIMIT"
  | "CONTEXT_LENGTH"
  | "SERVER"
  | "NETWORK"
  | "ABORTED"
  | "INVALID_REQUEST"
  | "IDLE_TIMEOUT";

/** Every {@link LlmErrorCode}, for validation and exhaustive tests. */
export const llmErrorCodes: readonly LlmErrorCode[] = [
  "AUTH",
  "RATE_LIMIT",
  "CONTEXT_LENGTH",
  "SERVER",
  "NETWORK",
  "ABORTED",
  "INVALID_REQUEST",
  "IDLE_TIMEOUT",
];

/** Structured fields of an {@link LlmError}. */
export interface LlmErrorFields {
  /** HTTP status of the failed response, when there was one. */
  status?: number;
  /** Provider id (`openai`, `openai-chat`, `replay`). */
  provider?: string;
  /** The provider's own error code (`rate_limit_exceeded`, `context_length_exceeded`…). */
  providerCode?: string;
  /** The provider's request id (`x-request-id`), for support tickets. */
  requestId?: string;
  /** The underlying error. Providers attach it only when it cannot hold a credential. */
  cause?: unknown;
}

const marker = "tapedeck.error.LlmError";
const symbol = Symbol.for(marker);

/**
 * A model call failed. The message is safe to show and to log: providers redact API keys out of
 * it before construction.
 */
export class LlmError extends TapedeckError {
  readonly [symbol] = true;
  declare readonly code: LlmErrorCode;
  readonly status: number | undefined;
  readonly provider: string | undefined;
  readonly providerCode: string | undefined;
  readonly requestId: string | undefined;

  constructor(code: LlmErrorCode, message: string, fields: LlmErrorFields = {}) {
    super(code, message, fields.cause === undefined ? {} : { cause: fields.cause });
    this.name = "LlmError";
    this.status = fields.status;
    this.provider = fields.provider;
    this.providerCode = fields.providerCode;
    this.requestId = fields.requestId;
  }

  /** True when a retry later may succeed (`RATE_LIMIT`, `SERVER`, `NETWORK`). */
  get retryable(): boolean {
    return this.code === "RATE_LIMIT" || this.code === "SERVER" || this.code === "NETWORK";
  }

  static override isInstance(error: unknown): error is LlmError {
    return TapedeckError.hasMarker(error, marker);
  }
}

const configMarker = "tapedeck.error.LlmConfigError";
const configSymbol = Symbol.for(configMarker);

/**
 * A model id or provider configuration that cannot work (unknown provider, malformed id). A
 * missing API key is an {@link LlmError} with code `AUTH` instead, so callers handle every
 * credential problem in one place.
 */
export class LlmConfigError extends TapedeckError {
  readonly [configSymbol] = true;

  constructor(message: string) {
    super("LLM_CONFIG", message);
    this.name = "LlmConfigError";
  }

  static override isInstance(error: unknown): error is LlmConfigError {
    return TapedeckError.hasMarker(error, configMarker);
  }
}
