/** Fetch helpers for the server's JSON API, with the optional access token. */

import type { SessionEvent } from "@tapedeck/session";
import type { EventHit, EventTrace, Lineage, Page, SessionSummary } from "@tapedeck/session-query";
import { readSse, type SseMessage } from "../shared/sse";
import type { SessionViewData } from "./timeline";

export type { SseMessage };

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
  constructor(
    status: number,
    body: { code?: string; message?: string; line?: number; offset?: number },
  ) {
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

async function getJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await apiFetch(path, init);
  const body = (await response.json().catch(() => ({}))) as { error?: object };
  if (!response.ok) throw new ApiError(response.status, body.error ?? {});
  return body as T;
}

function postJson<T>(path: string, body: unknown): Promise<T> {
  return getJson<T>(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function putJson<T>(path: string, body: unknown): Promise<T> {
  return getJson<T>(path, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== "") search.set(key, value);
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/** What `GET /api/config` returns. */
export interface ServerConfig {
  model: { model: string; configured: boolean; message?: string };
  home: string;
  demoAvailable: boolean;
}

/** Session list filters. */
export interface SessionFilters {
  q?: string;
  /** `last`: the last word of `q` matches as a prefix (search as you type). */
  prefix?: "none" | "last";
  workspace?: string;
  status?: string;
  since?: string;
}

/** Event search filters. */
export interface EventFilters {
  q?: string;
  /** `last`: the last word of `q` matches as a prefix (search as you type). */
  prefix?: "none" | "last";
  workspace?: string;
  types?: string;
  tool?: string;
  since?: string;
}

/** A run in progress on the server (it belongs to the server: a reload does not end it). */
export interface ActiveRun {
  runId: string;
  sessionId: string;
  resumed: boolean;
  status: string;
  /** Run events so far. */
  events: number;
  /** Pages following it now. */
  attached: number;
  pendingApprovals: Array<{
    callId: string;
    name: string;
    title: string;
    hiddenCharacters: boolean;
  }>;
}

export const api = {
  config: () => getJson<ServerConfig>("/api/config"),
  workspaces: () => getJson<{ items: Array<{ id: string; sessions: number }> }>("/api/workspaces"),
  sessions: (filters: SessionFilters, cursor?: string) =>
    getJson<Page<SessionSummary>>(`/api/sessions${query({ ...filters, limit: "40", cursor })}`),
  events: (filters: EventFilters, cursor?: string) =>
    getJson<Page<EventHit>>(`/api/events${query({ ...filters, limit: "30", cursor })}`),
  session: (id: string) => getJson<SessionViewData>(`/api/sessions/${encodeURIComponent(id)}`),
  trace: (id: string, seq: number) =>
    getJson<EventTrace>(`/api/sessions/${encodeURIComponent(id)}/events/${seq}/trace`),
  lineage: (id: string) =>
    getJson<Lineage & { shortIds: Record<string, string> }>(
      `/api/sessions/${encodeURIComponent(id)}/lineage`,
    ),
  shortIds: (ids: readonly string[]) =>
    getJson<{ shortIds: Record<string, string> }>(
      `/api/short-ids?ids=${ids.map(encodeURIComponent).join(",")}`,
    ),
  fork: (id: string, seq: number) =>
    postJson<{ sessionId: string }>(`/api/sessions/${encodeURIComponent(id)}/fork`, { seq }),
  setGoal: (id: string, goal: string | null) =>
    putJson<{ goal: string | null }>(`/api/sessions/${encodeURIComponent(id)}/goal`, { goal }),
  loadDemo: () => postJson<{ added: string[]; skipped: string[] }>("/api/demo", {}),
  runs: () => getJson<{ items: ActiveRun[] }>("/api/agent/runs"),
  sessionRun: (id: string) =>
    getJson<{ run: ActiveRun | null }>(`/api/sessions/${encodeURIComponent(id)}/run`),
  approve: (runId: string, callId: string, decision: "allow_once" | "reject") =>
    postJson<{ ok: true }>(`/api/agent/approvals/${runId}/${encodeURIComponent(callId)}`, {
      decision,
    }),
  cancel: (runId: string) => postJson<{ ok: true }>(`/api/agent/cancel/${runId}`, {}),
  exportUrl: (id: string) => withToken(`/api/sessions/${encodeURIComponent(id)}/export`),
  exportHtmlUrl: (id: string) => withToken(`/api/sessions/${encodeURIComponent(id)}/export/html`),
};

/** POSTs JSON and reads the answer as server-sent events (EventSource cannot POST). */
export async function* postSse(
  path: string,
  body: unknown,
  signal: AbortSignal,
): AsyncGenerator<SseMessage> {
  const response = await apiFetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  });
  yield* await sseOf(response);
}

/** The events of an SSE answer; an error answer throws `ApiError`. */
async function sseOf(response: Response): Promise<AsyncGenerator<SseMessage>> {
  if (!response.ok || response.body === null) {
    const error = ((await response.json().catch(() => ({}))) as { error?: object }).error ?? {};
    throw new ApiError(response.status, error);
  }
  return readSse(response.body);
}

/**
 * Re-attaches to a run in progress: every event it has sent so far (the server keeps them while it
 * runs), then the live ones until it ends. Throws `ApiError` `NO_SUCH_RUN` once it has ended.
 */
export async function openRunEvents(
  runId: string,
  signal: AbortSignal,
): Promise<AsyncGenerator<SseMessage>> {
  const response = await apiFetch(`/api/agent/runs/${encodeURIComponent(runId)}/events`, {
    headers: { accept: "text/event-stream" },
    signal,
  });
  return sseOf(response);
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
): () => void {
  let after = afterSeq;
  let source: EventSource | null = null;
  let closed = false;
  /** Errors since the stream last opened. */
  let failures = 0;
  const open = () => {
    if (closed) return;
    source = new EventSource(
      withToken(`/api/sessions/${encodeURIComponent(sessionId)}/stream?after=${after}`),
    );
    source.addEventListener("ready", () => {
      failures = 0;
    });
    source.addEventListener("events", (message) => {
      const { events } = JSON.parse((message as MessageEvent<string>).data) as {
        events: SessionEvent[];
      };
      const last = events.at(-1);
      if (last !== undefined) after = last.seq;
      onEvents(events);
    });
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
