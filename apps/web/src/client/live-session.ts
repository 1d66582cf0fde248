/**
 * The open session as the page holds it: the replayed view read once (`GET /api/sessions/:id`),
 * then grown by the events the session stream delivers. Each batch costs its own events (rows
 * appended by the incremental timeline builder, totals updated), never a re-read or replay of
 * the session. Pure: no DOM, unit-tested.
 */
import type { SessionEvent } from "@tapedeck/session";
import { known, type SessionViewData, type TimelineRow } from "./timeline";
import { TimelineBuilder } from "./timeline-builder";

/** What {@link LiveSession.append} did with a batch. */
export type AppendResult =
  /** New events were added (possibly after skipping ones already held). */
  | "appended"
  /** Nothing new: every event was already held. */
  | "unchanged"
  /** The batch does not follow the last event held: read the whole session again. */
  | "gap";

/** The session page's data: a view plus the events streamed since. */
export class LiveSession {
  readonly header: SessionViewData["header"];
  /** Every event but `assistant/chunk` (as the view), in seq order; grows in place. */
  readonly events: SessionEvent[];
  /** The same events by seq; grows in place. */
  readonly bySeq: Map<number, SessionEvent>;
  /** Every event of the log, chunks included. */
  eventCount: number;
  usage: SessionViewData["usage"];
  goal: string | null;
  lastSeq: number;
  #builder: TimelineBuilder;
  #rows: TimelineRow[];

  constructor(view: SessionViewData) {
    this.header = view.header;
    this.events = view.events.slice();
    this.bySeq = new Map(this.events.map((event) => [event.seq, event]));
    this.eventCount = view.eventCount;
    this.usage = { ...view.usage };
    this.goal = view.goal;
    this.lastSeq = view.lastSeq;
    this.#builder = new TimelineBuilder(new Map(view.replacedBy), new Map(view.streamedText));
    this.#builder.add(this.events);
    this.#rows = this.#builder.rows();
  }

  /** The timeline rows; a new array after each append that added events. */
  get rows(): TimelineRow[] {
    return this.#rows;
  }

  /**
   * Adds the events of one stream message. Events the session already holds (a reconnect that
   * overlaps) are skipped; a batch that starts past the next seq is refused (`"gap"`).
   */
  append(events: readonly SessionEvent[]): AppendResult {
    const fresh = events.filter((event) => event.seq > this.lastSeq);
    const first = fresh[0];
    if (first === undefined) return "unchanged";
    if (first.seq !== this.lastSeq + 1) return "gap";
    for (const event of fresh) {
      this.eventCount += 1;
      this.lastSeq = event.seq;
      // The same totals as the replayed session's `usage` and `goal`.
      const value = known(event);
      if (value?.type === "model/response" && value.usage !== undefined) {
        this.usage = {
          inputTokens: this.usage.inputTokens + value.usage.inputTokens,
          outputTokens: this.usage.outputTokens + value.usage.outputTokens,
          cachedInputTokens: this.usage.cachedInputTokens + (value.usage.cachedInputTokens ?? 0),
        };
      }
      if (value?.type === "goal/set") this.goal = value.goal;
      if (value?.type === "assistant/chunk") continue;
      this.events.push(event);
      this.bySeq.set(event.seq, event);
    }
    this.#builder.add(fresh);
    this.#rows = this.#builder.rows();
    return "appended";
  }
}
