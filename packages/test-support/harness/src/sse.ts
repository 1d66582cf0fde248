import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One server-sent event: its name (`message` when none was sent), data and id. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The events of a server-sent event stream (a `fetch` response body) as they arrive, parsed by
 * `eventsource-parser`. Ends with the stream; releases the reader when the caller stops early.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push({
        event: message.event ?? "message",
        data: message.data,
        ...(message.id === undefined ? {} : { id: message.id }),
      });
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift() as SseEvent;
    }
  } finally {
    reader.releaseLock();
  }
}
