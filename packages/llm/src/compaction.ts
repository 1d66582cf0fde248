/**
 * How a compaction summary reaches the model. Neither OpenAI API has a "summary" item, so the
 * summary travels as a `user` message that starts with this prefix. A user message (not system or
 * developer) because OpenAI-compatible servers (vLLM, Ollama, llama.cpp chat templates) often
 * refuse a system message after the first position; the prefix tells the model the text stands
 * for earlier conversation it can no longer see. Servers that rebuild a request from the wire
 * (the replay server) turn a user message with this prefix back into a compaction item.
 */
export const COMPACTION_PREFIX =
  "[Summary of the earlier conversation. The messages it replaces are no longer shown.]\n\n";

/** The message text that carries a compaction summary. */
export function compactionMessage(summary: string): string {
  return `${COMPACTION_PREFIX}${summary}`;
}

/** The summary inside a compaction message, or `undefined` for any other text. */
export function compactionSummary(text: string): string | undefined {
  return text.startsWith(COMPACTION_PREFIX) ? text.slice(COMPACTION_PREFIX.length) : undefined;
}
