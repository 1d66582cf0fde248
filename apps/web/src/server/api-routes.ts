/**
 * Every `/api` route of the viewer as one chained Hono app. Its type, {@link ApiRoutes}, is what
 * the client (`client/api.ts`) is built from (`hc<ApiRoutes>`): paths, parameters, queries and
 * bodies (from the validators, `route-input.ts`), JSON answers and server-sent events
 * (`event-stream.ts`). The guards and the error handler are the app's (`app.ts`).
 */
import type { SessionIndex } from "@tapedeck/host";
import type { ImportEnvironment } from "@tapedeck/importers";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { agentRoutes } from "./agent-routes";
import type { ServerRuns } from "./agent-runs";
import { checkpointRoutes } from "./checkpoint-routes";
import { loadDemoSessions } from "./demo";
import { eventStream } from "./event-stream";
import { importRoutes } from "./import-routes";
import type { LiveChange, LiveWatcher } from "./live";
import { answer } from "./route-input";
import { sessionRoutes } from "./session-routes";
import { sessionStreamRoutes } from "./session-stream";
import { storageRoutes } from "./storage-routes";

/** What the routes read and drive. */
export interface ApiRouteDeps {
  store: SessionStore;
  index: SessionIndex;
  runs: ServerRuns;
  live: LiveWatcher;
  /** Recorded logs for "Load demo sessions"; absent: the action is not offered. */
  demoLogs: (() => Promise<readonly string[]>) | undefined;
  /** Where "Import" looks for other agents' sessions. */
  importEnvironment: ImportEnvironment;
  /** What `storage` reads its settings from (the cold age). */
  env: Readonly<Record<string, string | undefined>>;
}

/** What `GET /api/live` sends: `ready` once every later change will be reported, then changes. */
export interface LiveEvents {
  ready: Record<string, never>;
  changes: { changes: LiveChange[] };
}

/** `GET /api/live`: the change feed as SSE, until the page goes away. */
function liveRoutes(live: LiveWatcher) {
  return new Hono().get("/api/live", (c) =>
    eventStream<LiveEvents>(c, async (send, stream) => {
      live.start();
      const queue: LiveChange[][] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = live.subscribe((changes) => {
        queue.push(changes);
        wake?.();
      });
      let open = true;
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      // "ready" promises that every change after it is reported: it waits for the watcher's first
      // view of the logs, or a log written before that view would be in it and never reported.
      await live.ready();
      await send("ready", {});
      try {
        while (open) {
          const next = queue.shift();
          if (next !== undefined) {
            await send("changes", { changes: next });
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            // A comment line every 15 s keeps proxies from closing an idle stream.
            setTimeout(resolve, 15_000).unref();
          });
          wake = null;
          if (open && queue.length === 0) await stream.write(": keep-alive\n\n");
        }
      } finally {
        unsubscribe();
      }
    }),
  );
}

/** The `/api` routes, in the order they are matched. */
export function apiRoutes(deps: ApiRouteDeps) {
  const { store, index, runs } = deps;
  return new Hono()
    .route("/", sessionStreamRoutes(store, deps.live))
    .get("/api/health", (c) => answer(c, { ok: true as const }))
    .get("/api/config", (c) =>
      answer(c, {
        model: runs.status(),
        /** The Tapedeck home the server reads. */
        home: store.home,
        /** Whether "Load demo sessions" is offered. */
        demoAvailable: deps.demoLogs !== undefined,
      }),
    )
    .route("/", sessionRoutes({ store, index }))
    .route("/", checkpointRoutes({ store, index }))
    .post("/api/demo", async (c) => {
      if (deps.demoLogs === undefined) {
        return c.json(
          { error: { code: "NO_DEMO", message: "No demo sessions are shipped with this server." } },
          404,
        );
      }
      const report = await loadDemoSessions(store, await deps.demoLogs());
      await index.sync();
      return answer(c, report, 200);
    })
    .route("/", liveRoutes(deps.live))
    .route("/", agentRoutes({ runs }))
    .route("/", importRoutes({ store, index, env: deps.importEnvironment }))
    .route("/", storageRoutes({ store, env: deps.env }));
}

/** The type of every `/api` route: what the typed client is built from. */
export type ApiRoutes = ReturnType<typeof apiRoutes>;
