import {
  createHost,
  ModelNotConfiguredError,
  sessionIdsOnDisk,
  setSessionGoal,
  shortIds,
} from "@tapedeck/host";
import type { LlmProvider } from "@tapedeck/llm";
import { type Session, SessionNotFoundError } from "@tapedeck/session";
import { type QueryScope, settleActiveSessions } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { sessionView } from "../shared/session-view";
import { registerAgentRoutes } from "./agent-routes";
import { DEFAULT_RUN_IDLE_MS, type RunsHost, ServerRuns } from "./agent-runs";
import { loadDemoSessions } from "./demo";
import { jsonBody, parseInput, toHttpError } from "./http-errors";
import { apiGuard, hostGuard } from "./http-guard";
import { registerImportRoutes } from "./import-routes";
import { LiveWatcher } from "./live";
import { registerPage } from "./page";
import {
  eventsQuerySchema,
  forkBodySchema,
  goalBodySchema,
  seqSchema,
  sessionIdSchema,
  sessionQuerySchema,
  sessionsQuerySchema,
} from "./schemas";
import type { SessionIndex } from "./session-index";
import { addSessionStreamRoute } from "./session-stream";

/** How the server reaches a model; the host is built from these unless one is given. */
export interface AgentModelOptions {
  /** Model id written into `turn/start` (`openai:gpt-4.1-mini`). */
  model: string;
  /** Builds the provider of a run (tests). Default: the host's, from `env`. */
  provider?: () => LlmProvider;
  /** Environment the host reads (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, …; default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Working directory of new sessions (default `process.cwd()`). */
  cwd?: string;
  /**
   * How long a run waiting for an approval may have no page attached before it is cancelled
   * (`TAPEDECK_WEB_RUN_IDLE_MS`, default five minutes).
   */
  runIdleMs?: number;
}

/** Options of {@link createApp}. */
export interface AppOptions {
  store: SessionStore;
  /** The query engine and how to bring it up to date with the logs. */
  index: SessionIndex;
  /** Model settings for the agent composer. */
  agent: AgentModelOptions;
  /**
   * The runtime that starts runs and holds their approvals (`startRun`, `approvals`). Default: one
   * built with `createHost` over the store's home from `agent`, closed with the app.
   */
  host?: RunsHost;
  /**
   * When set, every `/api` request must carry it (`Authorization: Bearer …` or `?token=`).
   * Required when the server listens on anything but loopback.
   */
  token?: string;
  /** Recorded logs for "Load demo sessions" (JSONL texts); absent: the action is not offered. */
  demoLogs?: () => Promise<readonly string[]>;
  /** Built client (`dist/client`); absent: the API only. */
  clientDir?: string;
  /** Poll interval of the live watcher in ms (default 1000). */
  liveIntervalMs?: number;
  /** Where "Import" looks for other agents' sessions (`HOME`, `CLAUDE_CONFIG_DIR`, …); default the process's. */
  importEnvironment?: Readonly<Record<string, string | undefined>>;
}

/** The Hono app plus what the process needs to run and stop it. */
export interface WebApp {
  app: Hono;
  live: LiveWatcher;
  runs: ServerRuns;
  /**
   * Stops the watcher, cancels the runs in progress and waits (up to 5 s) until their logs record
   * the cancellation, then closes the host it built.
   */
  close(): Promise<void>;
}

/** Highlight markers of search snippets: private-use characters the client splits on. */
export const HIGHLIGHT = { open: "\uE000", close: "\uE001" } as const;

const allScope: QueryScope = { all: true };

function scopeFor(workspace: string | undefined): QueryScope {
  return workspace === undefined ? allScope : { workspaceIds: [workspace] };
}

/**
 * The host the runs go through: the one given, or one built over the store's home (the same
 * runtime as the CLI and ACP agent: tools per workspace with session_query, the session's recorded
 * cwd, slash commands, the approval broker), closed with the app.
 */
function runtimeOf(
  store: SessionStore,
  agent: AgentModelOptions,
  given: RunsHost | undefined,
): { host: RunsHost; close(): void } {
  if (given !== undefined) return { host: given, close: () => undefined };
  const provider = agent.provider;
  const host = createHost({
    env: agent.env ?? process.env,
    home: store.home,
    model: agent.model,
    ...(provider === undefined ? {} : { providerFor: () => provider() }),
  });
  return { host, close: () => host.close() };
}

/**
 * The web server as a Hono app: JSON API over the query engine and the store, SSE for live
 * changes and agent runs, and the built client. Run it in-process with `app.request(…)` in tests.
 */
export function createApp(options: AppOptions): WebApp {
  const { store, index } = options;
  const app = new Hono();
  const { agent } = options;
  const runtime = runtimeOf(store, agent, options.host);
  const runs = new ServerRuns(runtime.host, {
    callerCwd: agent.cwd ?? process.cwd(),
    idleMs: agent.runIdleMs ?? DEFAULT_RUN_IDLE_MS,
    onEnded: () => void index.sync().catch(() => undefined),
  });
  const live = new LiveWatcher(store, index, options.liveIntervalMs ?? 1000);
  addSessionStreamRoute(app, store, live);

  app.onError((error, c) => {
    if (ModelNotConfiguredError.isInstance(error)) {
      return c.json({ error: { code: error.code, message: error.message } }, 503);
    }
    const { status, body } = toHttpError(error);
    if (status === 500) console.error(error);
    return c.json(body, status);
  });

  app.use("*", hostGuard(options.token));
  app.use("/api/*", ...apiGuard(options.token));

  app.get("/api/health", (c) => c.json({ ok: true }));

  app.get("/api/config", (c) =>
    c.json({
      model: runs.status(),
      home: store.home,
      demoAvailable: options.demoLogs !== undefined,
    }),
  );

  app.get("/api/sessions", async (c) => {
    const query = parseInput(sessionsQuerySchema, c.req.query(), "query");
    await index.sync();
    const scope = scopeFor(query.workspace);
    const paging = {
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      ...(query.orderBy === undefined ? {} : { orderBy: query.orderBy }),
      ...(query.status === undefined ? {} : { status: query.status }),
    };
    const page =
      query.q !== undefined || query.since !== undefined || query.until !== undefined
        ? await index.engine.searchSessions(scope, {
            ...paging,
            ...(query.q === undefined ? {} : { text: query.q }),
            ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
            ...(query.since === undefined ? {} : { since: query.since }),
            ...(query.until === undefined ? {} : { until: query.until }),
          })
        : await index.engine.listSessions(scope, paging);
    // A turn left open by a process that died is not running: show it as interrupted.
    const items = await settleActiveSessions(
      page.items,
      async (id) => (await store.lockOwner(id)) !== undefined,
    );
    const shown =
      query.status === "active" ? items.filter((item) => item.status === "active") : items;
    // Short ids unique in the home (the host's one rule), accepted back by the CLI.
    const short = shortIds(await sessionIdsOnDisk(store));
    return c.json({
      ...page,
      items: shown.map((item) => ({ ...item, shortId: short.get(item.id) ?? item.id })),
    });
  });

  app.get("/api/workspaces", async (c) => {
    // A team index counts every machine's sessions, like the other routes list them.
    const counts = new Map<string, number>();
    if (index.workspaces !== undefined) {
      for (const { id, sessions } of await index.workspaces()) counts.set(id, sessions);
    } else {
      for (const listing of await store.list()) {
        counts.set(listing.header.workspaceId, (counts.get(listing.header.workspaceId) ?? 0) + 1);
      }
    }
    return c.json({
      items: [...counts]
        .map(([id, sessions]) => ({ id, sessions }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    });
  });

  /**
   * A session from its log, or — logged on another machine of a team index — from the index,
   * which replays it through the same invariants.
   */
  const readSession = async (id: string): Promise<Session> => {
    try {
      return await store.readSession(id);
    } catch (error) {
      if (!SessionNotFoundError.isInstance(error)) throw error;
      return index.engine.readSession(allScope, id);
    }
  };

  app.get("/api/sessions/:id", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    // Read from the file itself: always current, and damage comes with its line and offset.
    const session = await readSession(id);
    const chunks = parseInput(sessionQuerySchema, c.req.query(), "query").chunks === "true";
    return c.json(sessionView(session, { chunks }));
  });

  app.get("/api/events", async (c) => {
    const query = parseInput(eventsQuerySchema, c.req.query(), "query");
    await index.sync();
    const page = await index.engine.searchEvents(scopeFor(query.workspace), {
      highlight: HIGHLIGHT,
      ...(query.q === undefined ? {} : { text: query.q }),
      ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
      ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
      ...(query.types === undefined ? {} : { types: query.types }),
      ...(query.roles === undefined ? {} : { roles: query.roles }),
      ...(query.tool === undefined ? {} : { toolName: query.tool }),
      ...(query.callId === undefined ? {} : { callId: query.callId }),
      ...(query.since === undefined ? {} : { since: query.since }),
      ...(query.until === undefined ? {} : { until: query.until }),
      ...(query.currentOnly === undefined ? {} : { currentOnly: query.currentOnly === "true" }),
      ...(query.order === undefined ? {} : { order: query.order }),
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json(page);
  });

  app.get("/api/sessions/:id/events/:seq/trace", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const seq = parseInput(seqSchema, c.req.param("seq"), "seq");
    await index.sync();
    return c.json(await index.engine.traceEvent(allScope, id, seq));
  });

  app.get("/api/sessions/:id/lineage", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    await index.sync();
    return c.json(await index.engine.traceLineage(allScope, id));
  });

  app.get("/api/sessions/:id/export", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    // Replayed from the file itself (an index may hold only the readable prefix of a damaged
    // log): a damaged log throws (422) and nothing is sent. Same format as `exportSession`:
    // header, then every event with a fork's parent prefix inlined.
    const session = await readSession(id);
    const jsonl = `${[session.header, ...session.events].map((line) => JSON.stringify(line)).join("\n")}\n`;
    return c.body(jsonl, 200, {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${id}.jsonl"`,
    });
  });

  app.get("/api/sessions/:id/export/html", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    // Same source as the JSONL export (the file, replay-validated: damaged → 422, nothing sent).
    const session = await store.readSession(id);
    await index.sync();
    const lineage = await index.engine.traceLineage(allScope, id).catch(() => null);
    // React's server renderer is only needed here: loaded on the first export.
    const { renderSessionHtml } = await import("../export/render-html");
    return c.body(renderSessionHtml({ session, lineage }), 200, {
      "content-type": "text/html; charset=utf-8",
      "content-disposition": `attachment; filename="${id}.html"`,
    });
  });

  app.put("/api/sessions/:id/goal", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const body = parseInput(goalBodySchema, await jsonBody(c), "body");
    // The same operation as the CLI's --goal and ACP's /goal; busy while a run holds the log (409).
    await setSessionGoal(store, id, body.goal);
    await index.sync();
    return c.json({ goal: body.goal });
  });

  app.post("/api/sessions/:id/fork", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const body = parseInput(forkBodySchema, await jsonBody(c), "body");
    const forked = await store.fork(id, body.seq === undefined ? {} : { atSeq: body.seq });
    await index.sync();
    return c.json({ sessionId: forked.sessionId, parent: forked.header.parent }, 201);
  });

  app.post("/api/demo", async (c) => {
    if (options.demoLogs === undefined) {
      return c.json(
        { error: { code: "NO_DEMO", message: "No demo sessions are shipped with this server." } },
        404,
      );
    }
    const report = await loadDemoSessions(store, await options.demoLogs());
    await index.sync();
    return c.json(report);
  });

  app.get("/api/live", (c) =>
    streamSSE(c, async (stream) => {
      live.start();
      const queue: string[] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = live.subscribe((changes) => {
        queue.push(JSON.stringify({ changes }));
        wake?.();
      });
      let open = true;
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      await stream.writeSSE({ event: "ready", data: "{}" });
      try {
        while (open) {
          const next = queue.shift();
          if (next !== undefined) {
            await stream.writeSSE({ event: "changes", data: next });
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

  registerAgentRoutes(app, { runs });
  registerImportRoutes(app, { store, index, env: options.importEnvironment ?? process.env });

  app.all("/api/*", (c) =>
    c.json({ error: { code: "NOT_FOUND", message: "No such endpoint." } }, 404),
  );

  if (options.clientDir !== undefined) registerPage(app, options.clientDir, options.token);

  return {
    app,
    live,
    runs,
    async close() {
      live.stop();
      runs.cancelAll();
      await runs.settled();
      runtime.close();
    },
  };
}
