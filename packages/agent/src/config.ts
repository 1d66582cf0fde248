import path from "node:path";
import { parseModelId } from "@tapedeck/llm";
import { defaultHome } from "@tapedeck/session-store";

/** The model used when neither a flag nor `TAPEDECK_MODEL` names one. */
export const DEFAULT_MODEL = "openai:gpt-4.1-mini";

/** Resolved configuration of the agent. */
export interface AgentConfig {
  /** `TAPEDECK_HOME` (default `~/.tapedeck`). */
  home: string;
  /** Model id, `provider:model` (`openai:gpt-4.1-mini`, `openai-chat:llama3`). */
  model: string;
  /** `OPENAI_API_KEY`, if set. */
  apiKey?: string;
  /** `OPENAI_BASE_URL`, if set (any OpenAI-compatible server). */
  baseUrl?: string;
}

/** Command-line overrides; each wins over its environment variable. */
export interface ConfigFlags {
  home?: string;
  model?: string;
  baseUrl?: string;
}

/** A set, non-blank value, trimmed; blank counts as unset. */
function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/**
 * Resolves the configuration: flags override the environment, the environment overrides the
 * defaults. Empty variables count as unset.
 *
 * @throws LlmConfigError (from `@tapedeck/llm`) when the model id is malformed or names an
 * unknown provider.
 */
export function resolveConfig(
  env: Record<string, string | undefined> = process.env,
  flags: ConfigFlags = {},
): AgentConfig {
  const pick = (flag: string | undefined, variable: string | undefined) =>
    nonBlank(flag) ?? nonBlank(variable);
  const model = pick(flags.model, env.TAPEDECK_MODEL) ?? DEFAULT_MODEL;
  // Refuse a malformed id here, before a session is created for it.
  parseModelId(model);
  const homeFlag = nonBlank(flags.home);
  const home = homeFlag === undefined ? defaultHome(env) : path.resolve(homeFlag);
  const config: AgentConfig = { home, model };
  const apiKey = nonBlank(env.OPENAI_API_KEY);
  if (apiKey !== undefined) config.apiKey = apiKey;
  const baseUrl = pick(flags.baseUrl, env.OPENAI_BASE_URL);
  if (baseUrl !== undefined) config.baseUrl = baseUrl;
  return config;
}
