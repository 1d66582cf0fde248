import type { LlmErrorCode } from "@tapedeck/llm";

/** How a recorded error code looks on the wire. */
export interface WireError {
  status: number;
  /** The provider's error code (`rate_limit_exceeded`…), which the client maps back. */
  code: string;
  type: string;
}

const wireErrors: Record<
  Exclude<LlmErrorCode, "NETWORK" | "ABORTED" | "IDLE_TIMEOUT">,
  WireError
> = {
  AUTH: { status: 401, code: "invalid_api_key", type: "invalid_request_error" },
  RATE_LIMIT: { status: 429, code: "rate_limit_exceeded", type: "requests" },
  CONTEXT_LENGTH: { status: 400, code: "context_length_exceeded", type: "invalid_request_error" },
  INVALID_REQUEST: { status: 400, code: "invalid_request_error", type: "invalid_request_error" },
  SERVER: { status: 500, code: "server_error", type: "server_error" },
};

/**
 * The HTTP status and provider code a recorded error replays as; `undefined` for `NETWORK`,
 * `ABORTED` and `IDLE_TIMEOUT`, which replay as a dropped connection. A status in the log
 * (`error.status`) wins.
 */
export function wireErrorFor(code: LlmErrorCode, status?: number): WireError | undefined {
  if (code === "NETWORK" || code === "ABORTED" || code === "IDLE_TIMEOUT") return undefined;
  const wire = wireErrors[code];
  return status === undefined ? wire : { ...wire, status };
}
