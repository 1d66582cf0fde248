import {
  type AgentConfig,
  type AnyAgentTool,
  defaultTools,
  resolveConfig,
  wrapReadOnlyTool,
} from "@tapedeck/agent";
import { type LlmProvider, resolveProvider } from "@tapedeck/llm";
import { createSessionQueryTool, type SessionQueryEngine } from "@tapedeck/session-query";
import { createSessionStore, defaultWorkspaceId, type SessionStore } from "@tapedeck/session-store";
import { syncedEngine, type Warn } from "./query-index";
import { AGENT_NAME, AGENT_VERSION } from "./version";

/** Everything a command needs: configuration, the store, the index, providers and tools. */
export interface Host {
  config: AgentConfig;
  store: SessionStore;
  /** The search index, opened on first use and synced before each query. */
  engine: SessionQueryEngine & { close(): void };
  providerFor(model: string): LlmProvider;
  /** The built-in tools plus `session_query` scoped to the workspace of `cwd`. */
  toolsFor(cwd: string, sessionId: string): AnyAgentTool[];
}

/** Builds the host from the environment and flags (flags win); `warn` gets notices (stderr). */
export function createHost(
  env: Record<string, string | undefined>,
  flags: { model?: string; home?: string } = {},
  warn?: Warn,
): Host {
  const config = resolveConfig(env, flags);
  const store = createSessionStore({
    home: config.home,
    agent: { name: AGENT_NAME, version: AGENT_VERSION },
  });
  const engine = syncedEngine(store, warn);
  return {
    config,
    store,
    engine,
    providerFor: (model) => resolveProvider(model, env).provider,
    toolsFor: (cwd) => standardTools(engine, defaultWorkspaceId(cwd)),
  };
}

/** The tools of every run: the built-ins plus `session_query` bound to one workspace. */
export function standardTools(engine: SessionQueryEngine, workspaceId: string): AnyAgentTool[] {
  return defaultTools({
    extra: [wrapReadOnlyTool(createSessionQueryTool(engine, { workspaceId }))],
  });
}
