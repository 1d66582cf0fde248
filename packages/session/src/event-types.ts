/**
 * The names the log format knows, without their zod schemas: a reader that only checks a name
 * (a search query's `types` and `roles`) imports these and never builds, or even loads, the
 * event schemas (`schema.ts` keys its schemas by these lists, so they cannot drift apart).
 */

/** Every known (non-extension) event type of log format version 1. */
export const KNOWN_EVENT_TYPES = [
  "turn/start",
  "turn/end",
  "message",
  "model/request",
  "assistant/chunk",
  "model/response",
  "function_call",
  "function_call_output",
  "compaction",
  "approval/request",
  "approval/decision",
  "goal/set",
  "error",
] as const;

/** Who may say a message. */
export const MESSAGE_ROLES = ["system", "developer", "user", "assistant"] as const;

/** True for a known event type's name (not an `x-` extension). */
export function isKnownEventType(name: string): name is (typeof KNOWN_EVENT_TYPES)[number] {
  return (KNOWN_EVENT_TYPES as readonly string[]).includes(name);
}
