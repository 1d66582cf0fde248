/** The replayed session as the page and the HTML export read it. */
import type { AssistantChunkEvent, Session, SessionEvent } from "@tapedeck/session";

/**
 * What `GET /api/sessions/:id` returns: the replayed session, ready to render. Token chunks
 * (`assistant/chunk`, one event per streamed delta, often most of a log) are left out unless
 * `chunks` is set; `streamedText` gives each request's streamed text instead, which is all the page
 * needs (to show an answer that was streamed but never completed). `eventCount` counts them all.
 */
export function sessionView(session: Session, options: { chunks?: boolean } = {}) {
  const { events, streamedText } = splitChunks(session.events, options);
  return {
    header: session.header,
    events,
    eventCount: session.events.length,
    streamedText,
    currentSeqs: session.currentSeqs,
    replacedBy: [...session.replacedBy],
    openTurn: session.openTurn,
    pendingCalls: session.pendingCalls,
    usage: session.usage,
    goal: session.goal,
    lastSeq: session.lastSeq,
  };
}

/** The replayed session, ready to render: what `sessionView` returns (the page and the HTML export read it). */
export type SessionViewData = ReturnType<typeof sessionView>;

/**
 * Events without their token chunks (kept when `chunks` is set), and each request's streamed text
 * (requestId → text, in order of first chunk) collected from those chunks.
 */
export function splitChunks(
  all: readonly SessionEvent[],
  options: { chunks?: boolean } = {},
): { events: SessionEvent[]; streamedText: Array<[string, string]> } {
  const streamed = new Map<string, string>();
  const events: SessionEvent[] = [];
  for (const event of all) {
    if (event.type === "assistant/chunk") {
      const chunk = event as AssistantChunkEvent;
      if ("text" in chunk.delta) {
        streamed.set(chunk.requestId, (streamed.get(chunk.requestId) ?? "") + chunk.delta.text);
      }
      if (options.chunks !== true) continue;
    }
    events.push(event);
  }
  return { events, streamedText: [...streamed] };
}
