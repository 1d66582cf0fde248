/**
 * `GET /api/sessions/:id/stream?after=SEQ`: the events of one session after the seq the page
 * already has, as SSE, then each new event as the log grows. The log is read once up to its end
 * when the stream opens and afterwards only from the byte offset where the last read stopped:
 * a change costs the bytes appended, never a re-read or replay of the session.
 */
import { EventLogCorruptError, type SessionEvent, SessionNotFoundError } from "@tapedeck/session";
import {
  InvalidOffsetError,
  LogNotAFileError,
  type LogOffset,
  logOffsetSchema,
  type SessionStore,
} from "@tapedeck/session-store";
import { Hono } from "hono";
import { z } from "zod";
import { eventStream } from "./event-stream";
import { parseInput } from "./http-errors";
import type { LiveWatcher } from "./live";
import { queryInput } from "./route-input";
import { sessionIdSchema } from "./schemas";

/**
 * `?after=SEQ`: the last seq the page holds (0: from the first event); `&from=OFFSET`: where that
 * event's line ends, when the page was read by position (`SessionPage.end`), so the stream reads
 * from there instead of from the log's start.
 */
const streamQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  from: z.coerce.number().int().min(0).optional(),
});

/** What each `events` message carries. */
export interface SessionStreamMessage {
  events: SessionEvent[];
  /** Byte offset after the last event sent: a reconnect passes it as `from`. */
  end: number;
}

/** What the stream sends: `ready` once it follows the log, then `events` as the log grows. */
export interface SessionStreamEvents {
  ready: { after: number };
  events: SessionStreamMessage;
}

/** The route (chained, so that its type reaches the client). */
export function sessionStreamRoutes(store: SessionStore, live: LiveWatcher) {
  return new Hono().get("/api/sessions/:id/stream", queryInput(streamQuerySchema), async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const query = c.req.valid("query");
    let after = query.after;
    // Unknown sessions answer 404 before the stream opens.
    const header = await store.readHeader(id);
    return eventStream<SessionStreamEvents>(c, async (send, stream) => {
      live.start();
      // A log that is not a fork has the event with seq N on line N + 1.
      let position: { fromOffset: LogOffset; fromLine: number } | null =
        query.from === undefined || header.parent !== undefined
          ? null
          : { fromOffset: logOffsetSchema.parse(query.from), fromLine: after + 2 };
      /** Set at damage in the log: the stream stops following it (and stays open, quiet). */
      let damaged = false;
      /** Reads what was appended since the last read; the line being written is left for later. */
      const newEvents = async (): Promise<SessionEvent[]> => {
        const events: SessionEvent[] = [];
        const guessed = position !== null && position.fromOffset === query.from;
        try {
          for await (const read of store.read(id, { ...position, tornTail: "stop" })) {
            // An offset from the page that is not where the event after `after` starts: read
            // from the start instead.
            if (guessed && events.length === 0 && read.event.seq !== after + 1) {
              throw new InvalidOffsetError(`no seq ${after + 1} at byte ${query.from}`, {
                sessionId: id,
              });
            }
            position = { fromOffset: read.end, fromLine: read.line + 1 };
            if (read.event.seq > after) events.push(read.event);
          }
        } catch (error) {
          // Damage in what was appended: send the events before it, then follow no more (the
          // page shows what replay accepted; reopening the session reports the damage).
          if (EventLogCorruptError.isInstance(error)) {
            damaged = true;
            return events;
          }
          // The log was deleted, or replaced by what the store never reads (a link, a folder):
          // end the stream (the page's reconnect then gets the session's error).
          if (SessionNotFoundError.isInstance(error) || LogNotAFileError.isInstance(error)) {
            open = false;
            return events;
          }
          // Not a line start: the page's offset was wrong, or the log is now shorter than where
          // the stream stopped (another program cut it). Read it again from its start.
          if (!InvalidOffsetError.isInstance(error) || position === null) throw error;
          position = null;
          return newEvents();
        }
        return events;
      };
      let pending = true;
      let wake: (() => void) | null = null;
      const unsubscribe = live.subscribe((changes) => {
        if (changes.some((change) => change.sessionId === id)) {
          pending = true;
          wake?.();
        }
      });
      let open = true;
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      // The first read comes after the watcher's first view: an append before it is in the read,
      // one after it is reported.
      await live.ready();
      await send("ready", { after });
      try {
        while (open) {
          if (pending && !damaged) {
            pending = false;
            const events = await newEvents();
            const last = events.at(-1);
            if (last !== undefined && position !== null) {
              after = last.seq;
              const message: SessionStreamMessage = { events, end: position.fromOffset };
              await send("events", message);
            }
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 15_000).unref();
          });
          wake = null;
          if (open && !pending) await stream.write(": keep-alive\n\n");
        }
      } finally {
        unsubscribe();
      }
    });
  });
}
