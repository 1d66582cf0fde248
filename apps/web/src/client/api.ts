/**
 * The client of the server's API, with the optional access token. It is Hono's RPC client built
 * from the type of the server's routes (`hc<ApiRoutes>`, `server/api-routes.ts`): every path,
 * parameter, query, body, JSON answer and server-sent event is the server's own type, so a server
 * change the client does not follow fails `pnpm typecheck`. Only types cross from the server; the
 * bundle gets Hono's small client.
 */

import type { SessionEvent } from "@tapedeck/session";
import { type ClientResponse, hc } from "hono/client";
import type { ApiRoutes } from "../server/api-routes";
import type { ErrorBody } from "../server/http-errors";
import { readSse } from "../shared/sse";

const tokenKey = "tapedeck.token";

/** Reads `?token=` once, keeps it for this tab, and removes it from the address bar. */
export function initToken(): void {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("token");
  if (token !== null) {
    sessionStorage.setItem(tokenKey, token);
    url.searchParams.delete("token");
    window.history.replaceState(null, "", url);
  }
}

function token(): string | null {
  // No storage where the server draws a page's first view (its links carry no token: the server
  // draws one only when it has none).
  if (typeof sessionStorage === "undefined") return null;
  return sessionStorage.getItem(tokenKey);
}

/** A URL for a plain link or EventSource (they cannot send headers): the token goes in the query. */
export function withToken(path: string): string {
  const value = token();
  if (value === null) return path;
  return `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(value)}`;
}

/** An error answer of the API. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly line: number | undefined;
  readonly offset: number | undefined;
  constructor(status: number, body: Partial<ErrorBody["error"]>) {
    super(body.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body.code ?? "HTTP_ERROR";
    this.line = body.line;
    this.offset = body.offset;
  }
}

/** Fetch with the token header. */
export function apiFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const value = token();
  if (value !== null) headers.set("authorization", `Bearer ${value}`);
  return fetch(input, { ...init, headers });
}

/** The query of a URL: absent and empty values left out (an empty search box sends no `q`). */
function searchParams(query: Record<string, string | string[]>): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as Array<[string, unknown]>)
    if (value !== undefined && value !== "") search.set(key, String(value));
  return search;
}

/** The typed client of every `/api` route (paths relative to the page's origin); `api` below wraps it. */
export const apiClient = hc<ApiRoutes>("/", {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => apiFetch(input, init),
  buildSearchParams: searchParams,
});

/** Any answer of the typed client. */
type AnyResponse = ClientResponse<unknown, number, string>;

/** The JSON a call answers when it succeeds. */
type OkJson<R> =
  R extends ClientResponse<infer T, infer S, infer F>
    ? S extends 200 | 201
      ? F extends "json"
        ? T
        : never
      : never
    : never;

/** Event name → data of a route that answers with server-sent events (`event-stream.ts`). */
type EventsOfResponse<R> = R extends ClientResponse<infer T, 200, "sse"> ? T : never;

/** What a client call answers when it succeeds (`AnswerOf<typeof api.trace>` style helpers). */
export type AnswerOf<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

/** One parsed server-sent event: its name and its data. */
export type SseEventOf<Events> = {
  [E in keyof Events & string]: { event: E; data: Events[E] };
}[keyof Events & string];

/** The error body of a failed answer as an {@link ApiError}. */
async function errorOf(response: Response | AnyResponse): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as Partial<ErrorBody>;
  return new ApiError(response.status, body.error ?? {});
}

/** The JSON of a successful answer; an error answer throws {@link ApiError}. */
async function json<R extends AnyResponse>(pending: Promise<R>): Promise<OkJson<R>> {
  const response = await pending;
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as OkJson<R>;
}

/**
 * Reads a route that answers with server-sent events (a POST too: EventSource cannot), the data of
 * each parsed. An error answer throws {@link ApiError} before any event.
 */
async function events<R extends AnyResponse>(
  pending: Promise<R>,
): Promise<AsyncGenerator<SseEventOf<EventsOfResponse<R>>>> {
  const response = await pending;
  if (!response.ok || response.body === null) throw await errorOf(response);
  return parsed<EventsOfResponse<R>>(readSse(response.body));
}

async function* parsed<Events>(
  messages: AsyncGenerator<{ event: string; data: string }>,
): AsyncGenerator<SseEventOf<Events>> {
  for await (const message of messages)
    yield { event: message.event, data: JSON.parse(message.data) } as SseEventOf<Events>;
}

/** What an SSE call sends along: its abort signal and the `accept` header. */
function sseOptions(signal: AbortSignal) {
  return { headers: { accept: "text/event-stream" }, init: { signal } };
}

/** A GET route's events as a type-only token (for {@link listenSse}; nothing is called). */
function typeOfEvents<R extends AnyResponse>(
  _get: (...args: never[]) => Promise<R>,
): EventsOfResponse<R> | undefined {
  return undefined;
}

/**
 * Opens an `EventSource` on `path` (a GET route that answers with server-sent events), and calls
 * `handlers` with the parsed data of the events they name. Returns the source (to close it, or for
 * `onerror`).
 */
function listenSse<Events>(
  path: string,
  _events: Events | undefined,
  handlers: { [E in keyof Events]?: (data: Events[E]) => void },
): EventSource {
  const source = new EventSource(withToken(path));
  for (const [event, handler] of Object.entries(handlers) as Array<
    [string, (data: unknown) => void]
  >)
    source.addEventListener(event, (message) =>
      handler(JSON.parse((message as MessageEvent<string>).data)),
    );
  return source;
}

const sessions = apiClient.api.sessions;
const session = apiClient.api.sessions[":id"];

/** Session list filters (the search box and the filter row). */
export type SessionFilters = Pick<
  NonNullable<Parameters<typeof sessions.$get>[0]>["query"],
  "q" | "prefix" | "workspace" | "status" | "since"
>;

/** Event search filters. */
export type EventFilters = Pick<
  NonNullable<Parameters<typeof apiClient.api.events.$get>[0]>["query"],
  "q" | "prefix" | "workspace" | "types" | "tool" | "since"
>;

/** What a page of a session is asked with (`before`, `beforeOffset`, `from`, `limit`). */
export type SessionPageQuery = NonNullable<Parameters<typeof session.page.$get>[0]>["query"];

/** The body of a run (`POST /api/agent/stream`). */
export type RunBody = Parameters<typeof apiClient.api.agent.stream.$post>[0]["json"];

/** The body of a rewind (`POST /api/sessions/:id/rewind`). */
export type RewindBody = Parameters<typeof session.rewind.$post>[0]["json"];

/** A source `Import` offers. */
export type ImportSource = OkJson<
  Awaited<ReturnType<typeof apiClient.api.import.sources.$get>>
>["items"][number]["source"];

/** The change feed's events. */
type LiveEvents = EventsOfResponse<Awaited<ReturnType<typeof apiClient.api.live.$get>>>;

export const api = {
  config: () => json(apiClient.api.config.$get()),
  workspaces: () => json(apiClient.api.workspaces.$get()),
  sessions: (filters: SessionFilters, cursor?: string) =>
    json(sessions.$get({ query: { ...filters, limit: 40, cursor } })),
  events: (filters: EventFilters, cursor?: string) =>
    json(apiClient.api.events.$get({ query: { ...filters, limit: 30, cursor } })),
  /** The last page of a session, or the page before seq `before` (reaching back to `from`). */
  sessionPage: (id: string, query: SessionPageQuery = {}) =>
    json(session.page.$get({ param: { id }, query })),
  trace: (id: string, seq: number) =>
    json(session.events[":seq"].trace.$get({ param: { id, seq: String(seq) } })),
  lineage: (id: string) => json(session.lineage.$get({ param: { id } })),
  shortIds: (ids: readonly string[]) =>
    json(apiClient.api["short-ids"].$get({ query: { ids: ids.join(",") } })),
  fork: (id: string, seq: number) => json(session.fork.$post({ param: { id }, json: { seq } })),
  /** A changed file at event `seq`'s checkpoint and at the one before (for its diff). */
  checkpointFile: (id: string, seq: number, path: string) =>
    json(
      session.checkpoints[":seq"].file.$get({ param: { id, seq: String(seq) }, query: { path } }),
    ),
  /** Restores files (and forks, unless `filesOnly`) to event `seq`; `dryRun` previews. */
  rewind: (id: string, body: RewindBody) =>
    json(session.rewind.$post({ param: { id }, json: body })),
  /** Undoes the rewind whose `undo` checkpoint is given (409 when another rewind came since). */
  undoRewind: (id: string, undo: string) =>
    json(session.rewind.undo.$post({ param: { id }, json: { undo } })),
  setGoal: (id: string, goal: string | null) =>
    json(session.goal.$put({ param: { id }, json: { goal } })),
  loadDemo: () => json(apiClient.api.demo.$post()),
  runs: () => json(apiClient.api.agent.runs.$get()),
  sessionRun: (id: string) => json(session.run.$get({ param: { id } })),
  approve: (runId: string, callId: string, decision: "allow_once" | "reject") =>
    json(
      apiClient.api.agent.approvals[":runId"][":callId"].$post({
        param: { runId, callId: encodeURIComponent(callId) },
        json: { decision },
      }),
    ),
  cancel: (runId: string) => json(apiClient.api.agent.cancel[":runId"].$post({ param: { runId } })),
  importSources: () => json(apiClient.api.import.sources.$get()),
  storage: () => json(apiClient.api.storage.$get()),
  exportUrl: (id: string) => withToken(session.export.$path({ param: { id } })),
  exportHtmlUrl: (id: string) => withToken(session.export.html.$path({ param: { id } })),
  /** Starts a run and reads its events (`run_started` first). */
  startRun: (body: RunBody, signal: AbortSignal) =>
    events(apiClient.api.agent.stream.$post({ json: body }, sseOptions(signal))),
  /**
   * Re-attaches to a run in progress: every event it has sent so far (the server keeps them while
   * it runs), then the live ones until it ends. Throws `ApiError` `NO_SUCH_RUN` once it has ended.
   */
  runEvents: (runId: string, signal: AbortSignal) =>
    events(
      apiClient.api.agent.runs[":runId"].events.$get(
        { param: { runId }, query: {} },
        sseOptions(signal),
      ),
    ),
  /** Imports the sessions of another agent's default folder, with progress. */
  importFrom: (source: ImportSource, signal: AbortSignal) =>
    events(
      apiClient.api.import[":source"].$post({ param: { source }, json: {} }, sseOptions(signal)),
    ),
  /** Follows the change feed (`GET /api/live`): sessions written by other processes. */
  live: (handlers: Parameters<typeof listenSse<LiveEvents>>[2]) =>
    listenSse(apiClient.api.live.$path(), typeOfEvents(apiClient.api.live.$get), handlers),
};

/** What `GET /api/config` returns. */
export type ServerConfig = AnswerOf<typeof api.config>;

/** One event of a run's stream (`POST /api/agent/stream` or a re-attached one). */
export type RunStreamEvent =
  AnswerOf<typeof api.startRun> extends AsyncGenerator<infer E> ? E : never;

/** The longest wait between two attempts to open a session stream. */
const RETRY_MAX_MS = 30_000;

/**
 * Subscribes to one session's new events: the server sends the events after `afterSeq`, then
 * each event as the log grows (never the whole session again). Returns the function that closes
 * the stream. The page appends what `onEvents` receives to what it holds.
 */
export function subscribeSession(
  sessionId: string,
  afterSeq: number,
  onEvents: (events: SessionEvent[]) => void,
  /** Where the event `afterSeq` ends in the log (a page's `end`): the server reads from there. */
  fromOffset?: number | null,
): () => void {
  let after = afterSeq;
  let from = fromOffset ?? undefined;
  let source: EventSource | null = null;
  let closed = false;
  /** Errors since the stream last opened. */
  let failures = 0;
  const open = () => {
    if (closed) return;
    source = listenSse(
      apiClient.api.sessions[":id"].stream.$path({
        param: { id: sessionId },
        query: { after, from },
      }),
      typeOfEvents(apiClient.api.sessions[":id"].stream.$get),
      {
        ready: () => {
          failures = 0;
        },
        events: ({ events, end }) => {
          const last = events.at(-1);
          if (last !== undefined) {
            after = last.seq;
            from = end;
          }
          onEvents(events);
        },
      },
    );
    // Reconnect by hand, after the last seq received (EventSource's own retry would reuse the
    // first URL and send events twice). A stream that keeps failing (a session the server cannot
    // stream: deleted, or known only to a team index) is retried less and less often.
    source.onerror = () => {
      source?.close();
      failures += 1;
      setTimeout(open, Math.min(RETRY_MAX_MS, 1000 * 2 ** (failures - 1)));
    };
  };
  open();
  return () => {
    closed = true;
    source?.close();
  };
}
