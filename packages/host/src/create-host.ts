import {
  type AgentConfig,
  type AnyAgentTool,
  type ApprovalBroker,
  createApprovalBroker,
  defaultTools,
  resolveConfig,
  wrapReadOnlyTool,
} from "@tapedeck/agent";
import { LlmConfigError, LlmError, type LlmProvider, resolveProvider } from "@tapedeck/llm";
import type { Session } from "@tapedeck/session";
import { createSessionQueryTool, type SessionQueryEngine } from "@tapedeck/session-query";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { ModelNotConfiguredError } from "./errors";
import { assertHomeWritable } from "./home-access";
import { listModels } from "./models";
import { openSession } from "./open-session";
import { syncedEngine, type Warn } from "./query-index";
import { mcpSettingsFromEnv } from "./run-mcp";
import { setSessionGoal } from "./session-goal";
import { resolveSessionId, sessionIdsOnDisk, shortIds } from "./session-ids";
import { type PreparedRun, type StartRunOptions, startRun } from "./start-run";
import { copyFromTeamIndex } from "./team-copy";
import { openTeamIndex, type TeamIndex } from "./team-index";
import { AGENT_NAME, AGENT_VERSION } from "./version";

/** Options of {@link createHost}; flags win over the environment. */
export interface HostOptions {
  /** The environment (`TAPEDECK_HOME`, `TAPEDECK_MODEL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`). */
  env: Record<string, string | undefined>;
  /** `--model`. */
  model?: string;
  /** A home other than `TAPEDECK_HOME`. */
  home?: string;
  /** Where notices for the person go (default stderr; never stdout, which may carry JSON-RPC). */
  warn?: Warn;
  /** Builds a provider (tests); default `resolveProvider(model, env)`. */
  providerFor?: (model: string) => LlmProvider;
  /**
   * A team index (`postgres://…`) to query instead of the home's SQLite index; default
   * `TAPEDECK_INDEX_URL`.
   */
  indexUrl?: string;
}

/** The one runtime every surface uses: configuration, store, index and the session operations. */
export interface Host {
  config: AgentConfig;
  store: SessionStore;
  /**
   * The search index, opened on first use and synced before each query: the home's SQLite index,
   * or the team index (PostgreSQL) when `TAPEDECK_INDEX_URL` is set, the home pushed before each
   * query.
   */
  engine: SessionQueryEngine & { close(): void };
  /** The team index when `TAPEDECK_INDEX_URL` is set, else `null`. */
  teamIndex: TeamIndex | null;
  /** The pending approvals of this process's runs (surfaces that answer asynchronously). */
  approvals: ApprovalBroker;
  /** @throws ModelNotConfiguredError when no provider can be built (no key, bad model id). */
  providerFor(model: string): LlmProvider;
  /** The built-in tools working in `cwd` plus `session_query` bound to `workspaceId`. */
  toolsFor(workspace: { cwd: string; workspaceId: string }): AnyAgentTool[];
  /**
   * See {@link startRun}.
   * @throws StorageFaultError ("the Tapedeck home PATH is read-only") before anything else when
   * the home cannot be written.
   */
  startRun(options: StartRunOptions): Promise<PreparedRun>;
  /**
   * For commands that must write (index, import): throws the `StorageFaultError` "the Tapedeck
   * home PATH is read-only" when the home cannot be written. Reading commands need not call it:
   * `engine` answers from the logs on such a home.
   */
  assertWritable(): void;
  /** See {@link openSession}. */
  openSession(sessionId: string): Promise<Session>;
  /** A full id or a unique prefix (any short id shown) to the session id. */
  resolveSessionId(text: string): Promise<string>;
  /**
   * Short ids unique among every session of the home and `extra` (run ids shown beside them).
   * The only way a surface shortens an id.
   */
  shortIds(extra?: Iterable<string>): Promise<Map<string, string>>;
  /** Records the session's standing goal (`null` clears it) outside a turn. */
  setGoal(sessionId: string, goal: string | null): Promise<void>;
  /** Models to offer, the configured one first (see `listModels`). */
  listModels(): Promise<string[]>;
  /** Closes the index. */
  close(): void;
}

/** Builds the host: resolves home, config and model once, opens the store and the index. */
export function createHost(options: HostOptions): Host {
  const { env } = options;
  const config = resolveConfig(env, {
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.home === undefined ? {} : { home: options.home }),
  });
  const store = createSessionStore({
    home: config.home,
    agent: { name: AGENT_NAME, version: AGENT_VERSION },
  });
  const indexUrl = options.indexUrl ?? (env.TAPEDECK_INDEX_URL?.trim() || undefined);
  const team = indexUrl === undefined ? null : openTeamIndex(indexUrl, store);
  const engine = team?.engine ?? syncedEngine(store, options.warn);
  const elsewhere = team === null ? undefined : (prefix: string) => team.team.sessionIds(prefix);
  const build = options.providerFor ?? ((model: string) => resolveProvider(model, env).provider);
  const providerFor = (model: string): LlmProvider => {
    try {
      return build(model);
    } catch (error) {
      if (LlmError.isInstance(error) || LlmConfigError.isInstance(error)) {
        throw new ModelNotConfiguredError(error.message, { cause: error });
      }
      throw error;
    }
  };
  const toolsFor = (workspace: { cwd: string; workspaceId: string }) =>
    standardTools(engine, workspace.workspaceId);
  return {
    config,
    store,
    engine,
    approvals: createApprovalBroker(),
    providerFor,
    toolsFor,
    assertWritable: () => assertHomeWritable(store.home),
    startRun: async (run) => {
      assertHomeWritable(store.home);
      // A session logged on another machine is copied here first (a fork needs its ancestors).
      const wanted = run.sessionId ?? run.forkFrom?.sessionId;
      if (team !== null && wanted !== undefined) {
        const copied = await copyFromTeamIndex(store, engine, wanted);
        if (copied.length > 0) {
          (options.warn ?? ((text: string) => process.stderr.write(text)))(
            `tapedeck: copied ${copied.join(", ")} from the team index ${team.team.where} into ${store.home} to continue it here.\n`,
          );
        }
      }
      return startRun(
        {
          store,
          model: config.model,
          providerFor,
          toolsFor,
          mcp: mcpSettingsFromEnv(env, options.warn),
        },
        run,
      );
    },
    openSession: (sessionId) => openSession(store, sessionId),
    teamIndex: team?.team ?? null,
    resolveSessionId: (text) => resolveSessionId(store, text, elsewhere),
    shortIds: async (extra = []) =>
      shortIds([
        ...(await sessionIdsOnDisk(store)),
        ...(elsewhere === undefined ? [] : await elsewhere("")),
        ...extra,
      ]),
    setGoal: (sessionId, goal) => setSessionGoal(store, sessionId, goal),
    listModels: () =>
      listModels({
        model: config.model,
        ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
        ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
      }),
    close: () => engine.close(),
  };
}

/** The tools of every run: the built-ins plus `session_query` bound to one workspace. */
export function standardTools(engine: SessionQueryEngine, workspaceId: string): AnyAgentTool[] {
  return defaultTools({
    extra: [wrapReadOnlyTool(createSessionQueryTool(engine, { workspaceId }))],
  });
}
