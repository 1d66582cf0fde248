import type { SessionIndex } from "@tapedeck/host";
import { createHost, ModelNotConfiguredError } from "@tapedeck/host";
import type { LlmProvider } from "@tapedeck/llm";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { DEFAULT_RUN_IDLE_MS, type RunsHost, ServerRuns } from "./agent-runs";
import { apiRoutes } from "./api-routes";
import { startAutoImport } from "./auto-import";
import { toHttpError } from "./http-errors";
import { apiGuard, hostGuard } from "./http-guard";
import { LiveWatcher } from "./live";
import { registerPage } from "./page";
import { firstPageReader } from "./session-routes";

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
  /** Milliseconds between the auto import's looks (when the home's setting is on); default 2 s. */
  autoImportIntervalMs?: number;
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
    // The next turn finds the workspace watched (its checkpoints list what changed); host.close()
    // ends the watchers with the server.
    keepCheckpointWatchersMs: 10 * 60_000,
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

  app.onError((error, c) => {
    if (ModelNotConfiguredError.isInstance(error)) {
      return c.json({ error: { code: error.code, message: error.message } }, 503);
    }
    const { status, body } = toHttpError(error);
    if (status === 500) console.error(error);
    return c.json(body, status);
  });

  // Every route after the guards: Hono runs handlers in the order they are registered.
  app.use("*", hostGuard(options.token));
  app.use("/api/*", ...apiGuard(options.token));
  const env = options.importEnvironment ?? process.env;
  app.route(
    "/",
    apiRoutes({
      store,
      index,
      runs,
      live,
      demoLogs: options.demoLogs,
      importEnvironment: env,
      env: process.env,
    }),
  );
  const stopAutoImport = startAutoImport(store, env, options.autoImportIntervalMs);

  app.all("/api/*", (c) =>
    c.json({ error: { code: "NOT_FOUND", message: "No such endpoint." } }, 404),
  );

  if (options.clientDir !== undefined) {
    registerPage(app, options.clientDir, options.token, firstPageReader({ store, index }));
  }

  return {
    app,
    live,
    runs,
    async close() {
      live.stop();
      await stopAutoImport();
      runs.cancelAll();
      await runs.settled();
      runtime.close();
    },
  };
}
