/**
 * Error codes that logs written before codes became UPPER_SNAKE hold in lowercase: the model
 * call codes (`model/response.error.code`, `turn/end.error.code`, `error.code`) and the agent's
 * fallback for a non-Tapedeck model failure.
 */
const legacyErrorCodes: ReadonlySet<string> = new Set([
  "auth",
  "rate_limit",
  "context_length",
  "server",
  "network",
  "aborted",
  "invalid_request",
  "idle_timeout",
  "model_error",
]);

/**
 * The code a log records, in today's casing: a lowercase code of an older log
 * (`rate_limit`) becomes `RATE_LIMIT`; any other code comes back unchanged. Every reader that
 * acts on a recorded error code (replay of a model error, display) goes through here, so old
 * and new logs mean the same.
 */
export function normalizeErrorCode(code: string): string {
  return legacyErrorCodes.has(code) ? code.toUpperCase() : code;
}
