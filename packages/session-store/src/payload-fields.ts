/**
 * The event fields whose text may live in a blob, apart from the blob code (`blob-payloads.ts`) so
 * that a reader of lines by position (`log-folder.ts`, in the fresh search's bundle) can tell an
 * event that names a blob without loading the blob store.
 */
import type { SessionEvent } from "@tapedeck/session";

/** The text field of each event type that may live in a blob, and its reference field. */
export const payloadFields: Readonly<Record<string, readonly [string, string]>> = {
  function_call_output: ["output", "outputBlob"],
  message: ["content", "contentBlob"],
  function_call: ["arguments", "argumentsBlob"],
};

/** Whether a parsed line names a blob for its payload (cheap: one property read). */
export function hasBlobRef(event: SessionEvent): boolean {
  const fields = payloadFields[event.type];
  return (
    fields !== undefined && (event as unknown as Record<string, unknown>)[fields[1]] !== undefined
  );
}
