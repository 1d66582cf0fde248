/**
 * A route's server-sent events, typed: the handler can send only the events its map names, and the
 * map is part of the route's type (`TypedResponse<Events, 200, "sse">`), so the typed client
 * (`client/api.ts`) reads each event's data as the server wrote it.
 */
import type { Context, TypedResponse } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";

/** A response of server-sent events: event name → the data of that event. */
export type EventStreamResponse<Events> = Response & TypedResponse<Events, 200, "sse">;

/** Sends one event of the map (its data as JSON), with an optional SSE `id:`. */
export type SendEvent<Events> = <E extends keyof Events & string>(
  event: E,
  data: Events[E],
  id?: string,
) => Promise<void>;

/** Answers with a stream of `Events`: `run` sends them (and may use the raw stream for comments). */
export function eventStream<Events>(
  c: Context,
  run: (send: SendEvent<Events>, stream: SSEStreamingApi) => Promise<void>,
): EventStreamResponse<Events> {
  return streamSSE(c, (stream) =>
    run(
      (event, data, id) =>
        stream.writeSSE({ event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) }),
      stream,
    ),
  ) as EventStreamResponse<Events>;
}
