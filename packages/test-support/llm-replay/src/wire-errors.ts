import type { LlmErrorCode } from "@tapedeck/llm";

/** How a recorded error code looks on the wire. */
export interface WireError {
  status: number;
  /** The provider's error code (`rate_limit_exceeded`…), which the client maps back. */
  code: string;
  type: string;
}

const wireErrors: Record<
  Exclude<LlmErrorCode, "network" | "aborted" | "idle_timeout">,
  WireError
> = {
  auth: { status: 401, code: "invalid_api_key", type: "invalid_request_error" },
  rate_limit: { status: 429, code: "rate_limit_exceeded", type: "requests" },
  context_length: { status: 400, code: "context_length_exceeded", type: "invalid_request_error" },
  invalid_request: { status: 400, code: "invalid_request_error", type: "invalid_request_error" },
  server: { status: 500, code: "server_error", type: "server_error" },
};

/**
 * The HTTP status and provider code a recorded error replays as; `undefined` for `network`,
 * `aborted` and `idle_timeout`, which replay as a dropped connection. A status in the log
 * (`error.status`) wins.
 */
export function wireErrorFor(code: LlmErrorCode, status?: number): WireError | undefined {
  if (code === "network" || code === "aborted" || code === "idle_timeout") return undefined;
  const wire = wireErrors[code];
  return status === undefined ? wire : { ...wire, status };
}
