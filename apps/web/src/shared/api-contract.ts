/**
 * The viewer's HTTP API as one table of types: for every route, its path parameters, query, body
 * and answer (JSON, a file, or the data of each server-sent event). Queries and bodies are the
 * input types of the zod schemas the server validates with; answers are the types the server's
 * handlers return (derived from the handler where it is a named function, otherwise checked there
 * with `satisfies`). The client (`client/api.ts`) builds its requests and reads its answers from
 * this table only, so a renamed field or a new required body field fails `pnpm typecheck`.
 *
 * Types only: nothing here reaches the client bundle but the route names in {@link apiRoutes}
 * (which the client does not import; the server's tests compare them with the registered routes).
 * See `architecture/web.md` ("The client is typed from the server").
 */
import type { CheckpointFileChange, RewindReport, RunEvent, StorageReport } from "@tapedeck/host";
import type { SessionViewData } from "@tapedeck/html-export/render";
import type { ImportProgress, ImportSummary } from "@tapedeck/importers";
import type { EventHit, EventTrace, Lineage, Page } from "@tapedeck/session-query";
import type { z } from "zod";
import type { ActiveRunInfo, ModelStatus } from "../server/agent-runs";
import type { DemoReport } from "../server/demo";
import type { ErrorBody } from "../server/http-errors";
import type { ImportBody, ImportSourceListing, ViewerSource } from "../server/import-routes";
import type { LiveChange } from "../server/live";
import type * as schemas from "../server/schemas";
import type { SessionPage } from "../server/session-pages";
import type { SessionList } from "../server/session-routes";
import type { SessionStreamMessage } from "../server/session-stream";
import type { ShortIdMap } from "../server/short-ids";

/** Every route of `/api`, as `METHOD /path` with `:name` parameters, in registration order. */
export const apiRoutes = [
  "GET /api/health",
  "GET /api/config",
  "GET /api/sessions/:id/stream",
  "GET /api/short-ids",
  "GET /api/sessions",
  "GET /api/workspaces",
  "GET /api/sessions/:id",
  "GET /api/sessions/:id/page",
  "GET /api/events",
  "GET /api/sessions/:id/events/:seq/trace",
  "GET /api/sessions/:id/lineage",
  "GET /api/sessions/:id/export",
  "GET /api/sessions/:id/export/html",
  "PUT /api/sessions/:id/goal",
  "POST /api/sessions/:id/fork",
  "GET /api/sessions/:id/checkpoints/:seq/file",
  "POST /api/sessions/:id/rewind",
  "POST /api/demo",
  "GET /api/live",
  "GET /api/agent/runs",
  "GET /api/sessions/:id/run",
  "GET /api/agent/runs/:runId/events",
  "POST /api/agent/stream",
  "POST /api/agent/approvals/:runId/:callId",
  "POST /api/agent/cancel/:runId",
  "POST /api/agent",
  "GET /api/import/sources",
  "POST /api/import/:source",
  "GET /api/storage",
] as const;

export type { ErrorBody };

/** A route name of {@link apiRoutes}. */
export type ApiRoute = (typeof apiRoutes)[number];

/**
 * A query as the browser writes it: the schema's input, with coerced numbers written as numbers
 * and the access token left out (`apiFetch` sends it as a header).
 */
type UrlQuery<S extends z.ZodType> = {
  [K in Exclude<keyof z.input<S>, "token">]?: unknown extends z.input<S>[K]
    ? number | undefined
    : z.input<S>[K] | undefined;
};

/** What the server sends on each event of a run's stream (`event:` is the run event's `type`). */
export type RunStreamEvents = {
  [E in RunEvent as E["type"] extends "error" ? never : E["type"]]: E;
} & {
  /**
   * The run failed (a run event), or could not start (unknown or damaged session) or has ended
   * (`NO_SUCH_RUN`): an error body, without `type` and `runId`.
   */
  error: Extract<RunEvent, { type: "error" }> | ErrorBody["error"];
};

/** The replayed session, ready to render: the server's `sessionView` (also the HTML export's). */
export type { SessionViewData };

/** `GET /api/config`. */
export interface ServerConfig {
  model: ModelStatus;
  /** The Tapedeck home the server reads. */
  home: string;
  /** Whether "Load demo sessions" is offered. */
  demoAvailable: boolean;
}

/** `POST /api/sessions/:id/fork`. */
export interface ForkAnswer {
  sessionId: string;
  parent: { sessionId: string; seq: number } | undefined;
}

/**
 * One entry per route. `query` and `body` are what the client may send; exactly one of `answer`
 * (JSON), `events` (server-sent events: event name → data) or `file` (a download link) says what
 * comes back. Error answers are always {@link ErrorBody} and are not listed.
 */
export interface ApiContract {
  "GET /api/health": { answer: { ok: true } };
  "GET /api/config": { answer: ServerConfig };
  "GET /api/sessions/:id/stream": {
    query: { after?: number | undefined; from?: number | undefined };
    events: { ready: { after: number }; events: SessionStreamMessage };
  };
  "GET /api/short-ids": {
    query: UrlQuery<typeof schemas.shortIdsQuerySchema>;
    answer: { shortIds: ShortIdMap };
  };
  "GET /api/sessions": { query: UrlQuery<typeof schemas.sessionsQuerySchema>; answer: SessionList };
  "GET /api/workspaces": { answer: { items: Array<{ id: string; sessions: number }> } };
  "GET /api/sessions/:id": {
    query: UrlQuery<typeof schemas.sessionQuerySchema>;
    answer: SessionViewData & { shortIds: ShortIdMap };
  };
  "GET /api/sessions/:id/page": {
    query: UrlQuery<typeof schemas.sessionPageQuerySchema>;
    answer: SessionPage & { shortIds: ShortIdMap };
  };
  "GET /api/events": { query: UrlQuery<typeof schemas.eventsQuerySchema>; answer: Page<EventHit> };
  "GET /api/sessions/:id/events/:seq/trace": { answer: EventTrace };
  "GET /api/sessions/:id/lineage": { answer: Lineage & { shortIds: ShortIdMap } };
  "GET /api/sessions/:id/export": { file: "application/x-ndjson" };
  "GET /api/sessions/:id/export/html": { file: "text/html" };
  "PUT /api/sessions/:id/goal": {
    body: z.input<typeof schemas.goalBodySchema>;
    answer: z.output<typeof schemas.goalBodySchema>;
  };
  "POST /api/sessions/:id/fork": {
    body: z.input<typeof schemas.forkBodySchema>;
    answer: ForkAnswer;
  };
  "GET /api/sessions/:id/checkpoints/:seq/file": {
    query: UrlQuery<typeof schemas.checkpointFileQuerySchema>;
    answer: CheckpointFileChange;
  };
  "POST /api/sessions/:id/rewind": {
    body: z.input<typeof schemas.rewindBodySchema>;
    answer: RewindReport;
  };
  "POST /api/demo": { answer: DemoReport };
  "GET /api/live": { events: { ready: Record<string, never>; changes: { changes: LiveChange[] } } };
  "GET /api/agent/runs": { answer: { items: ActiveRunInfo[] } };
  "GET /api/sessions/:id/run": { answer: { run: ActiveRunInfo | null } };
  "GET /api/agent/runs/:runId/events": {
    query: UrlQuery<typeof schemas.runEventsQuerySchema>;
    events: RunStreamEvents;
  };
  "POST /api/agent/stream": {
    body: z.input<typeof schemas.agentStreamBodySchema>;
    events: RunStreamEvents;
  };
  "POST /api/agent/approvals/:runId/:callId": {
    body: z.input<typeof schemas.approvalBodySchema>;
    answer: { ok: true };
  };
  "POST /api/agent/cancel/:runId": { answer: { ok: true } };
  "POST /api/agent": {
    body: z.input<typeof schemas.agentOnceBodySchema>;
    answer: { text: string };
  };
  "GET /api/import/sources": { answer: { items: ImportSourceListing[] } };
  "GET /api/storage": { answer: StorageReport };
  "POST /api/import/:source": {
    params: { source: ViewerSource };
    body: ImportBody;
    events: { progress: ImportProgress; summary: ImportSummary; error: ErrorBody["error"] };
  };
}

/** The names in a path template: `/a/:id/b/:seq` → `"id" | "seq"`. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path of a route name. */
type PathOf<R extends ApiRoute> = R extends `${string} ${infer P}` ? P : never;

/** The path parameters of a route (strings or numbers, encoded by the client). */
export type ParamsOf<R extends ApiRoute> = ApiContract[R] extends { params: infer P }
  ? P
  : { [K in ParamNames<PathOf<R>>]: string | number };

/** The query a route accepts (none: `never`). */
export type QueryOf<R extends ApiRoute> = ApiContract[R] extends { query: infer Q } ? Q : never;

/** The body a route requires (none: `never`). */
export type BodyOf<R extends ApiRoute> = ApiContract[R] extends { body: infer B } ? B : never;

/** The JSON answer of a route. */
export type AnswerOf<R extends ApiRoute> = ApiContract[R] extends { answer: infer A } ? A : never;

/** Routes that answer JSON. */
export type JsonRoute = {
  [R in ApiRoute]: ApiContract[R] extends { answer: unknown } ? R : never;
}[ApiRoute];

/** Routes that answer with server-sent events. */
export type SseRoute = {
  [R in ApiRoute]: ApiContract[R] extends { events: unknown } ? R : never;
}[ApiRoute];

/** Routes that answer with a file to download. */
export type FileRoute = {
  [R in ApiRoute]: ApiContract[R] extends { file: unknown } ? R : never;
}[ApiRoute];

/** Event name → data of an SSE route. */
export type EventsOf<R extends SseRoute> = ApiContract[R] extends { events: infer E } ? E : never;

/** One parsed server-sent event of route `R`: its name and its data. */
export type SseEventOf<R extends SseRoute> = {
  [E in keyof EventsOf<R> & string]: { event: E; data: EventsOf<R>[E] };
}[keyof EventsOf<R> & string];

/** What a request of route `R` carries: its path parameters, query and body, where it has them. */
export type RequestOf<R extends ApiRoute> = (keyof ParamsOf<R> extends never
  ? { params?: undefined }
  : { params: ParamsOf<R> }) &
  ([QueryOf<R>] extends [never] ? { query?: undefined } : { query?: QueryOf<R> }) &
  ([BodyOf<R>] extends [never] ? { body?: undefined } : { body: BodyOf<R> });

/** The arguments after the route name: none when the route takes nothing. */
export type ArgsOf<R extends ApiRoute> =
  object extends RequestOf<R> ? [request?: RequestOf<R>] : [request: RequestOf<R>];
