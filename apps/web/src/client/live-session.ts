/**
 * The open session as the page holds it: its last page (`GET /api/sessions/:id/page`) or a whole
 * replayed view (`GET /api/sessions/:id`), then grown by the events the session stream delivers
 * and by earlier pages loaded on request. Each streamed batch costs its own events (rows appended
 * by the incremental timeline builder, totals updated), never a re-read or replay of the
 * session. Pure: no DOM, unit-tested.
 */

import {
  known,
  type SessionViewData,
  sessionTitle,
  TimelineBuilder,
  type TimelineRow,
} from "@tapedeck/html-export/render";
import type { SessionEvent } from "@tapedeck/session";
import type { SessionPage } from "../server/session-pages";

/** What {@link LiveSession.append} did with a batch. */
export type AppendResult =
  /** New events were added (possibly after skipping ones already held). */
  | "appended"
  /** Nothing new: every event was already held. */
  | "unchanged"
  /** The batch does not follow the last event held: read the whole session again. */
  | "gap";

/** A page of the session as `GET /api/sessions/:id/page` answers it. */
export type SessionPageData = SessionPage;

/** What {@link LiveSession.prepend} did with an earlier page. */
export type PrependResult = "prepended" | "gap";

/**
 * The session page's data: a whole view or its last page, grown at the end by the events the
 * stream delivers and at the start by earlier pages.
 */
export class LiveSession {
  readonly header: SessionViewData["header"];
  /** Every event held but `assistant/chunk` (as the view), in seq order; grows in place. */
  readonly events: SessionEvent[];
  /** The same events by seq; grows in place. */
  readonly bySeq: Map<number, SessionEvent>;
  /** Every event of the log, chunks included. */
  eventCount: number;
  usage: SessionViewData["usage"];
  goal: string | null;
  lastSeq: number;
  /** The session's own first user message (its title), held or not. */
  firstPrompt: string | null;
  /** seq of the first event held (1: the session from its start). */
  firstSeq: number;
  /** Byte offset of the first event held, when its page was read by position. */
  start: number | null;
  /** Byte offset after the last event of the first page read by position (where streaming starts). */
  readonly end: number | null;
  /** Turns that start before the first event held. */
  #turnsBefore: number;
  /** requestId → text streamed, for every request held (chunks are not kept as events). */
  readonly #streamedText: Map<string, string>;
  readonly #replacedBy: Map<number, number>;
  #builder: TimelineBuilder;
  #rows: TimelineRow[];

  constructor(view: SessionViewData | SessionPageData) {
    this.header = view.header;
    this.events = view.events.slice();
    this.bySeq = new Map(this.events.map((event) => [event.seq, event]));
    this.#streamedText = new Map(view.streamedText);
    if ("totals" in view) {
      this.eventCount = view.totals.eventCount;
      this.usage = { ...view.totals.usage };
      this.goal = view.totals.goal;
      this.lastSeq = view.lastSeq;
      this.firstPrompt = view.totals.firstPrompt;
      this.firstSeq = view.firstSeq;
      this.start = view.start;
      this.end = view.end;
      this.#turnsBefore = view.totals.turnCount - turnStarts(view.events);
      // Whatever replaces a held event comes after it, so it is held too.
      this.#replacedBy = new Map();
    } else {
      this.eventCount = view.eventCount;
      this.usage = { ...view.usage };
      this.goal = view.goal;
      this.lastSeq = view.lastSeq;
      this.firstPrompt = sessionTitle(this.events, view.header.parent);
      this.firstSeq = 1;
      this.start = null;
      this.end = null;
      this.#turnsBefore = 0;
      this.#replacedBy = new Map(view.replacedBy);
    }
    this.#builder = this.#newBuilder();
    this.#rows = this.#builder.rows();
  }

  /** True when events before the first one held exist (load them with an earlier page). */
  get hasEarlier(): boolean {
    return this.firstSeq > 1;
  }

  /** The timeline rows; a new array after each append that added events. */
  get rows(): TimelineRow[] {
    return this.#rows;
  }

  #newBuilder(): TimelineBuilder {
    const builder = new TimelineBuilder(
      this.#replacedBy,
      this.#streamedText,
      this.firstSeq > 1 ? this.#turnsBefore : undefined,
    );
    builder.add(this.events);
    return builder;
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
      if (value?.type === "message" && value.role === "user" && this.firstPrompt === null) {
        this.firstPrompt = value.content;
      }
      if (value?.type === "assistant/chunk") {
        // Kept as text only (as the server's view does), for a rebuild after an earlier page.
        if ("text" in value.delta) {
          const text = this.#streamedText.get(value.requestId) ?? "";
          this.#streamedText.set(value.requestId, text + value.delta.text);
        }
        continue;
      }
      this.events.push(event);
      this.bySeq.set(event.seq, event);
    }
    this.#builder.add(fresh);
    this.#rows = this.#builder.rows();
    return "appended";
  }

  /**
   * Adds an earlier page in front of what is held (it must end right before the first event
   * held, else `"gap"`) and rebuilds the rows: the cost of what is held, on a user's request.
   */
  prepend(page: SessionPageData): PrependResult {
    if (page.lastSeq !== this.firstSeq - 1) return "gap";
    const held = this.events.splice(0);
    for (const event of page.events) this.events.push(event);
    for (const event of held) this.events.push(event);
    // In seq order, as a whole view's.
    this.bySeq.clear();
    for (const event of this.events) this.bySeq.set(event.seq, event);
    for (const [requestId, text] of page.streamedText) {
      this.#streamedText.set(requestId, text + (this.#streamedText.get(requestId) ?? ""));
    }
    this.#turnsBefore -= turnStarts(page.events);
    this.firstSeq = page.firstSeq;
    this.start = page.start;
    this.#builder = this.#newBuilder();
    this.#rows = this.#builder.rows();
    return "prepended";
  }
}

function turnStarts(events: readonly SessionEvent[]): number {
  return events.reduce((count, event) => count + (event.type === "turn/start" ? 1 : 0), 0);
}
