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
import { ModelNotConfiguredError } from "./errors";
import { assertHomeWritable } from "./home-access";
import { listModels } from "./models";
import { openSession } from "./open-session";
import { createQueryHost, type QueryHost, type QueryHostOptions } from "./query-host";
import { mcpSettingsFromEnv } from "./run-mcp";
import { setSessionGoal } from "./session-goal";
import { type SessionTrustLedger, sessionTrustLedger } from "./session-trust";
import { type PreparedRun, type StartRunOptions, startRun } from "./start-run";
import { copyFromTeamIndex } from "./team-copy";
import { workspaceCheckpointers } from "./workspace-checkpoints";

/** Options of {@link createHost}; flags win over the environment. */
export interface HostOptions extends QueryHostOptions {
  /** The environment (`TAPEDECK_HOME`, `TAPEDECK_MODEL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`). */
  env: Record<string, string | undefined>;
  /** `--model`. */
  model?: string;
  /** Builds a provider (tests); default `resolveProvider(model, env)`. */
  providerFor?: (model: string) => LlmProvider;
  /**
   * How long a workspace's checkpoint store and file-system watcher stay open after its last run
   * (a long-lived host: ACP, the viewer), so the next run's checkpoints find it watching; default
   * 0 (closed as the run ends). `close()` closes them.
   */
  keepCheckpointWatchersMs?: number;
}

/**
 * The one runtime every surface uses: configuration, store, index and the session operations.
 * Its reading half is a {@link QueryHost} (what `tapedeck sessions` builds alone).
 */
export interface Host extends QueryHost {
  config: AgentConfig;
  /** What this home knows of its sessions that their logs cannot prove (`session-trust.ts`). */
  trust: SessionTrustLedger;
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
  /** Records the session's standing goal (`null` clears it) outside a turn. */
  setGoal(sessionId: string, goal: string | null): Promise<void>;
  /** Models to offer, the configured one first (see `listModels`). */
  listModels(): Promise<string[]>;
}

/** Builds the host: resolves home, config and model once, opens the store and the index. */
export function createHost(options: HostOptions): Host {
  const { env } = options;
  const config = resolveConfig(env, {
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.home === undefined ? {} : { home: options.home }),
  });
  const base = createQueryHost({ ...options, home: config.home });
  const { store, engine, teamIndex } = base;
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
  const trust = sessionTrustLedger(store.home);
  // Recorded MCP lists this home trusts, and those approved in this process (asked once each).
  const mcp = {
    ...mcpSettingsFromEnv(env, options.warn),
    trust,
    approved: new Set<string>(),
  };
  const checkpointers = workspaceCheckpointers(store.home, env, options.keepCheckpointWatchersMs);
  return {
    ...base,
    close: () => {
      base.close();
      void checkpointers?.close();
    },
    config,
    approvals: createApprovalBroker(),
    trust,
    providerFor,
    toolsFor,
    assertWritable: () => assertHomeWritable(store.home),
    startRun: async (run) => {
      assertHomeWritable(store.home);
      // A session logged on another machine is copied here first (a fork needs its ancestors).
      const wanted = run.sessionId ?? run.forkFrom?.sessionId;
      if (teamIndex !== null && wanted !== undefined) {
        const copied = await copyFromTeamIndex(store, engine, wanted);
        if (copied.length > 0) {
          (options.warn ?? ((text: string) => process.stderr.write(text)))(
            `tapedeck: copied ${copied.join(", ")} from the team index ${teamIndex.where} into ${store.home} to continue it here.\n`,
          );
        }
      }
      return startRun(
        {
          store,
          model: config.model,
          providerFor,
          toolsFor,
          mcp,
          checkpointerFor: (cwd) => checkpointers?.checkpointerFor(cwd),
          trust,
        },
        run,
      );
    },
    openSession: (sessionId) => openSession(store, sessionId),
    setGoal: (sessionId, goal) => setSessionGoal(store, sessionId, goal),
    listModels: () =>
      listModels({
        model: config.model,
        ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
        ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
      }),
  };
}

/** The tools of every run: the built-ins plus `session_query` bound to one workspace. */
export function standardTools(engine: SessionQueryEngine, workspaceId: string): AnyAgentTool[] {
  return defaultTools({
    extra: [wrapReadOnlyTool(createSessionQueryTool(engine, { workspaceId }))],
  });
}
