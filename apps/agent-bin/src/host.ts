import { type AgentConfig, type AnyAgentTool, defaultTools, resolveConfig } from "@tapedeck/agent";
import { type LlmProvider, resolveProvider } from "@tapedeck/llm";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { AGENT_NAME, AGENT_VERSION } from "./version";

/** Everything a command needs: configuration, the store, providers and tools. */
export interface Host {
  config: AgentConfig;
  store: SessionStore;
  providerFor(model: string): LlmProvider;
  toolsFor(cwd: string, sessionId: string): AnyAgentTool[];
}

/** Builds the host from the environment and flags (flags win). */
export function createHost(
  env: Record<string, string | undefined>,
  flags: { model?: string; home?: string } = {},
): Host {
  const config = resolveConfig(env, flags);
  const store = createSessionStore({
    home: config.home,
    agent: { name: AGENT_NAME, version: AGENT_VERSION },
  });
  return {
    config,
    store,
    providerFor: (model) => resolveProvider(model, env).provider,
    toolsFor: () => defaultTools(),
  };
}
