/**
 * The client of the server's API, with the optional access token. Every request names its route
 * (`"GET /api/sessions/:id"`); its parameters, query, body and answer are typed by the server's
 * contract (`shared/api-contract.ts`), so a server change that the client does not follow fails
 * `pnpm typecheck`.
 */

import type { SessionEvent } from "@tapedeck/session";
import type {
  AnswerOf,
  ApiRoute,
  ArgsOf,
  BodyOf,
  ErrorBody,
  EventsOf,
  FileRoute,
  JsonRoute,
  QueryOf,
  RequestOf,
  ServerConfig,
  SseEventOf,
  SseRoute,
} from "../shared/api-contract";
import { readSse, type SseMessage } from "../shared/sse";

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
export function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const value = token();
  if (value !== null) headers.set("authorization", `Bearer ${value}`);
  return fetch(path, { ...init, headers });
}

/** `METHOD /path/:name` → the method and the URL with the parameters and query filled in. */
function target<R extends ApiRoute>(
  route: R,
  request: RequestOf<R> | undefined,
): { method: string; url: string } {
  const space = route.indexOf(" ");
  const params = (request?.params ?? {}) as Record<string, string | number>;
  const path = route
    .slice(space + 1)
    .replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries((request?.query ?? {}) as Record<string, unknown>))
    if (value !== undefined && value !== "") search.set(key, String(value));
  const text = search.toString();
  return { method: route.slice(0, space), url: text === "" ? path : `${path}?${text}` };
}

/** Sends a request of `route` (its body as JSON, if it has one). */
function send<R extends ApiRoute>(
  route: R,
  request: RequestOf<R> | undefined,
  init: RequestInit = {},
): Promise<Response> {
  const { method, url } = target(route, request);
  const body = request?.body;
  const headers = new Headers(init.headers);
  if (body !== undefined) headers.set("content-type", "application/json");
  return apiFetch(url, {
    ...init,
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The error body of a failed answer as an {@link ApiError}. */
async function errorOf(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as Partial<ErrorBody>;
  return new ApiError(response.status, body.error ?? {});
}

/**
 * Calls a JSON route of the server; the answer's type is the server's (`shared/api-contract.ts`).
 * An error answer throws {@link ApiError}.
 */
export async function request<R extends JsonRoute>(
  route: R,
  ...[request]: ArgsOf<R>
): Promise<AnswerOf<R>> {
  const response = await send(route, request);
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as AnswerOf<R>;
}

/**
 * Calls a route that answers with server-sent events (a POST too: EventSource cannot) and reads
 * them with their data parsed. An error answer throws {@link ApiError} before any event.
 */
export async function openSse<R extends SseRoute>(
  signal: AbortSignal,
  route: R,
  ...[request]: ArgsOf<R>
): Promise<AsyncGenerator<SseEventOf<R>>> {
  const response = await send(route, request, {
    headers: { accept: "text/event-stream" },
    signal,
  });
  if (!response.ok || response.body === null) throw await errorOf(response);
  return parsed<R>(readSse(response.body));
}

async function* parsed<R extends SseRoute>(
  messages: AsyncGenerator<SseMessage>,
): AsyncGenerator<SseEventOf<R>> {
  for await (const message of messages)
    yield { event: message.event, data: JSON.parse(message.data) } as SseEventOf<R>;
}

/**
 * Opens an `EventSource` on a GET route that answers with server-sent events, and calls `handlers`
 * with the parsed data of the events they name. Returns the source (to close it, or for `onerror`).
 */
export function listenSse<R extends SseRoute>(
  handlers: { [E in keyof EventsOf<R>]?: (data: EventsOf<R>[E]) => void },
  route: R,
  ...args: ArgsOf<R>
): EventSource {
  const source = new EventSource(urlOf(route, ...args));
  for (const [event, handler] of Object.entries(handlers) as Array<
    [string, (data: unknown) => void]
  >)
    source.addEventListener(event, (message) =>
      handler(JSON.parse((message as MessageEvent<string>).data)),
    );
  return source;
}

/** The URL of a route for a plain link or `EventSource` (they cannot send headers). */
export function urlOf<R extends FileRoute | SseRoute>(route: R, ...[request]: ArgsOf<R>): string {
  return withToken(target(route, request).url);
}

/** Session list filters (the search box and the filter row). */
export type SessionFilters = Pick<
  QueryOf<"GET /api/sessions">,
  "q" | "prefix" | "workspace" | "status" | "since"
>;

/** Event search filters. */
export type EventFilters = Pick<
  QueryOf<"GET /api/events">,
  "q" | "prefix" | "workspace" | "types" | "tool" | "since"
>;

/** What `GET /api/config` returns. */
export type { ServerConfig };

/** One event of a run's stream (`POST /api/agent/stream` or a re-attached one). */
export type RunStreamEvent = SseEventOf<"POST /api/agent/stream">;

export const api = {
  config: () => request("GET /api/config"),
  workspaces: () => request("GET /api/workspaces"),
  sessions: (filters: SessionFilters, cursor?: string) =>
    request("GET /api/sessions", { query: { ...filters, limit: 40, cursor } }),
  events: (filters: EventFilters, cursor?: string) =>
    request("GET /api/events", { query: { ...filters, limit: 30, cursor } }),
  /** The last page of a session, or the page before seq `before` (reaching back to `from`). */
  sessionPage: (id: string, query: QueryOf<"GET /api/sessions/:id/page"> = {}) =>
    request("GET /api/sessions/:id/page", { params: { id }, query }),
  trace: (id: string, seq: number) =>
    request("GET /api/sessions/:id/events/:seq/trace", { params: { id, seq } }),
  lineage: (id: string) => request("GET /api/sessions/:id/lineage", { params: { id } }),
  shortIds: (ids: readonly string[]) =>
    request("GET /api/short-ids", { query: { ids: ids.join(",") } }),
  fork: (id: string, seq: number) =>
    request("POST /api/sessions/:id/fork", { params: { id }, body: { seq } }),
  /** A changed file at event `seq`'s checkpoint and at the one before (for its diff). */
  checkpointFile: (id: string, seq: number, path: string) =>
    request("GET /api/sessions/:id/checkpoints/:seq/file", {
      params: { id, seq },
      query: { path },
    }),
  /** Restores files (and forks, unless `filesOnly`) to event `seq`; `dryRun` previews. */
  rewind: (id: string, body: BodyOf<"POST /api/sessions/:id/rewind">) =>
    request("POST /api/sessions/:id/rewind", { params: { id }, body }),
  setGoal: (id: string, goal: string | null) =>
    request("PUT /api/sessions/:id/goal", { params: { id }, body: { goal } }),
  loadDemo: () => request("POST /api/demo"),
  runs: () => request("GET /api/agent/runs"),
  sessionRun: (id: string) => request("GET /api/sessions/:id/run", { params: { id } }),
  approve: (runId: string, callId: string, decision: "allow_once" | "reject") =>
    request("POST /api/agent/approvals/:runId/:callId", {
      params: { runId, callId },
      body: { decision },
    }),
  cancel: (runId: string) => request("POST /api/agent/cancel/:runId", { params: { runId } }),
  importSources: () => request("GET /api/import/sources"),
  storage: () => request("GET /api/storage"),
  exportUrl: (id: string) => urlOf("GET /api/sessions/:id/export", { params: { id } }),
  exportHtmlUrl: (id: string) => urlOf("GET /api/sessions/:id/export/html", { params: { id } }),
};

/**
 * Re-attaches to a run in progress: every event it has sent so far (the server keeps them while it
 * runs), then the live ones until it ends. Throws `ApiError` `NO_SUCH_RUN` once it has ended.
 */
export function openRunEvents(
  runId: string,
  signal: AbortSignal,
): Promise<AsyncGenerator<RunStreamEvent>> {
  return openSse(signal, "GET /api/agent/runs/:runId/events", { params: { runId } });
}

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
      "GET /api/sessions/:id/stream",
      { params: { id: sessionId }, query: { after, from } },
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
