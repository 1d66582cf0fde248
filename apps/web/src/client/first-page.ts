/**
 * The first page of the session in the address, asked for as soon as the script runs (before
 * React renders the app). The server has usually fetched it already (the HTML's
 * `<link rel="preload">`): this request reuses that response. The app's first render waits a
 * little for it ({@link firstPageSettled}), so the shell and the session's first rows are laid
 * out and painted once, not the shell first and the rows a frame later.
 */
import { FIRST_PAGE_ID } from "../shared/page-ids";
import { type AnswerOf, api } from "./api";
import type { Route } from "./url";

/** A page of a session, as `GET /api/sessions/:id/page` answers it. */
export type SessionPageAnswer = AnswerOf<typeof api.sessionPage>;

interface Prefetched {
  key: string;
  answer: Promise<SessionPageAnswer>;
  /** The answer once it has arrived (a refusal stays in `answer`). */
  value: SessionPageAnswer | null;
}

let pending: Prefetched | null = null;

const keyOf = (sessionId: string, from: number | null) => `${sessionId}@${from ?? ""}`;

function firstRequest(sessionId: string, from: number | null): Promise<SessionPageAnswer> {
  return api.sessionPage(sessionId, from === null ? {} : { from }).then((page) => {
    if (performance.getEntriesByName("tapedeck:page-data").length === 0) {
      performance.mark("tapedeck:page-data");
    }
    return page;
  });
}

/**
 * The page the server drew the first view from (`<script type="application/json">` after
 * `#root`), if it is the route's: taken out of the document, so it is read once.
 */
function embeddedFirstPage(route: Route): SessionPageAnswer | null {
  const element = document.getElementById(FIRST_PAGE_ID);
  if (element === null) return null;
  element.remove();
  if (route.session === null || route.seq !== null) return null;
  const page = JSON.parse(element.textContent ?? "null") as SessionPageAnswer | null;
  return page?.header.sessionId === route.session ? page : null;
}

/**
 * Starts reading the route's session page (nothing without a session); the page the server
 * embedded, when there is one, is the answer at once.
 */
export function prefetchFirstPage(route: Route): void {
  if (route.session === null) return;
  const embedded = embeddedFirstPage(route);
  if (embedded !== null) {
    performance.mark("tapedeck:page-data");
    pending = {
      key: keyOf(route.session, null),
      answer: Promise.resolve(embedded),
      value: embedded,
    };
    return;
  }
  const held: Prefetched = {
    key: keyOf(route.session, route.seq),
    answer: firstRequest(route.session, route.seq),
    value: null,
  };
  // Whoever takes it handles a refusal; a prefetch nobody takes must not be reported unhandled.
  held.answer.then(
    (value) => {
      held.value = value;
    },
    () => undefined,
  );
  pending = held;
}

/** Whether the prefetched page is already here (the server embedded it). */
export function firstPageHere(): boolean {
  return pending?.value != null;
}

/**
 * Resolves when the prefetched page has arrived or was refused, or after `waitMs` (a slow answer,
 * e.g. a replayed fork, must not hold back the rest of the app); at once without a prefetch.
 */
export function firstPageSettled(waitMs: number): Promise<void> {
  const held = pending;
  if (held === null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    held.answer.then(done, done);
  });
}

/** The prefetched page if it is for this request and has already arrived (taken once). */
export function readyFirstPage(sessionId: string, from: number | null): SessionPageAnswer | null {
  const held = pending;
  if (held === null || held.value === null || held.key !== keyOf(sessionId, from)) return null;
  pending = null;
  return held.value;
}

/**
 * The page a session opens with (the last page, or reaching back to `from`): the prefetched
 * answer if it is for the same request (taken once), else a new request.
 */
export function firstPage(sessionId: string, from: number | null): Promise<SessionPageAnswer> {
  const held = pending;
  pending = null;
  if (held !== null && held.key === keyOf(sessionId, from)) return held.answer;
  return firstRequest(sessionId, from);
}
