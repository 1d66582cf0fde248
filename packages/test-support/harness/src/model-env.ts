import os from "node:os";
import type { TempWorkspace } from "@tapedeck/test-temp";

/** What {@link binaryEnv} puts in a spawned binary's environment. */
export interface BinaryEnvOptions {
  /** The OpenAI-compatible server (a replay or scripted server's `url`); default: a closed port. */
  baseUrl?: string;
  /** `TAPEDECK_MODEL`; default `openai:gpt-4.1-mini`. */
  model?: string;
  /** `OPENAI_API_KEY`; default a fake key (the servers never check it). */
  apiKey?: string;
  /** More variables, set last. */
  extra?: Record<string, string>;
}

/** Nothing listens on port 9 (discard): a run that reaches for a model fails fast. */
export const NO_MODEL_SERVER = "http://127.0.0.1:9/v1";

/**
 * The whole environment of a spawned `tapedeck`: `PATH`, `HOME` = the temp root (so nothing of the
 * person's `~` is read), `TAPEDECK_HOME`, `TMPDIR` = this test run's temp folder (the one the
 * temp guard checks, see `withRunTmpdir`), and the model variables. Nothing else of the test
 * process leaks in.
 */
export function binaryEnv(
  workspace: Pick<TempWorkspace, "root" | "home">,
  options: BinaryEnvOptions = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: workspace.root,
    TMPDIR: os.tmpdir(),
    TAPEDECK_HOME: workspace.home,
    TAPEDECK_MODEL: options.model ?? "openai:gpt-4.1-mini",
    OPENAI_API_KEY: options.apiKey ?? "test-key-not-real",
    OPENAI_BASE_URL: options.baseUrl ?? NO_MODEL_SERVER,
    ...options.extra,
  };
}
