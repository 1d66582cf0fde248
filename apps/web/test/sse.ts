// The page's own parser: the tests read the server's streams exactly as the browser does.
import { readSse, type SseMessage } from "../src/shared/sse";

export { readSse, type SseMessage };

/** Every message of a response's event stream, read to its end. */
export async function collect(response: Response): Promise<SseMessage[]> {
  const events: SseMessage[] = [];
  if (response.body === null) return events;
  for await (const message of readSse(response.body)) events.push(message);
  return events;
}
