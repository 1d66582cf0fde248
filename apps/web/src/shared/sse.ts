import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One server-sent event. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Reads a server-sent event stream as it arrives, with `eventsource-parser` (the WHATWG rules:
 * CR, LF or CRLF line ends, multi-line `data`, comments, events split across chunks). Used by the
 * page, which cannot use EventSource for POSTs, and by the server's tests. An event without a
 * name is a `message`; an event without data is not dispatched. Returning early (a `break`, or
 * `return()` on the generator) cancels the body, which closes the connection.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message) });
  let done = false;
  try {
    while (!done) {
      const next = await reader.read();
      done = next.done;
      parser.feed(done ? decoder.decode() : decoder.decode(next.value, { stream: true }));
      for (const message of parsed.splice(0)) {
        yield { event: message.event ?? "message", data: message.data };
      }
    }
  } finally {
    if (done) reader.releaseLock();
    else await reader.cancel().catch(() => undefined);
  }
}
