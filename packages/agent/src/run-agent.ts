import type { LlmProvider } from "@tapedeck/llm";
import type { ApprovalPolicy } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import { initializeRun } from "./initialize-run";
import { type RunResult, type RunTurnOptions, runTurn } from "./run-turn";

/** Options of {@link runAgent}: `initializeRun`'s and `runTurn`'s in one. */
export interface RunAgentOptions
  extends Omit<RunTurnOptions, "run" | "provider" | "model" | "policy" | "cwd"> {
  store: SessionStore;
  provider: LlmProvider;
  model: string;
  policy: ApprovalPolicy;
  cwd: string;
  input: string;
  sessionId?: string;
  forkFrom?: { sessionId: string; seq?: number };
  systemPrompt?: string;
}

/**
 * One whole run: `initializeRun` (new, resume or fork), then `runTurn`. Errors before the turn
 * starts (unknown session, busy session, damaged log) are thrown; everything after is in the
 * result and the log.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const { store, input, sessionId, forkFrom, systemPrompt, ...turn } = options;
  const run = await initializeRun({
    store,
    input,
    cwd: options.cwd,
    policy: options.policy,
    model: options.model,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(forkFrom === undefined ? {} : { forkFrom }),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
  });
  return runTurn({ ...turn, run });
}
