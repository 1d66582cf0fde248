import { existsSync } from "node:fs";
import {
  type AnyAgentTool,
  defaultTools,
  initializeRun,
  type RunEvent,
  type RunResult,
  runTurn,
} from "@tapedeck/agent";
import { LlmError, type LlmProvider, resolveProvider } from "@tapedeck/llm";
import type { ApprovalDecision, ApprovalPolicy } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";

/** How the server reaches a model. */
export interface AgentModelOptions {
  /** Model id written into `turn/start` (`openai:gpt-4.1-mini`). */
  model: string;
  /**
   * Builds the provider for a run. Default: `resolveProvider(model, env)` from `@tapedeck/llm`,
   * which throws `LlmError` `auth` when `OPENAI_API_KEY` is missing.
   */
  provider?: () => LlmProvider;
  /** Environment read by the default provider (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Working directory of new sessions (default `process.cwd()`). */
  cwd?: string;
  /**
   * Tools of a run, given the session's workspace. Default: `defaultTools()`; `createApp` adds
   * `session_query` bound to that workspace, as the CLI and the ACP agent do.
   */
  tools?: readonly AnyAgentTool[] | ((workspaceId: string) => readonly AnyAgentTool[]);
}

/** Whether a model is configured, and if not exactly what to set. */
export interface ModelStatus {
  model: string;
  configured: boolean;
  /** Set when not configured: what the person must do. */
  message?: string;
  /** The variables that matter. */
  variables: ["OPENAI_API_KEY", "TAPEDECK_MODEL", "OPENAI_BASE_URL"];
}

/** Raised when no model can be reached; the HTTP layer answers 503 with this message. */
export class ModelNotConfiguredError extends Error {
  readonly code = "MODEL_NOT_CONFIGURED";
  constructor(message: string) {
    super(message);
    this.name = "ModelNotConfiguredError";
  }
}

/** A run in progress, as `GET /api/agent/runs` lists it. */
export interface ActiveRunInfo {
  runId: string;
  sessionId: string;
  resumed: boolean;
  policy: ApprovalPolicy;
  status: "running" | "waiting_approval" | "cancelling";
  pendingApprovals: string[];
}

interface ActiveRun extends Omit<ActiveRunInfo, "pendingApprovals" | "status"> {
  controller: AbortController;
  approvals: Map<string, (decision: ApprovalDecision) => void>;
  cancelling: boolean;
}

/** What `start` returns: the run is initialised and persisted; `run()` drives it. */
export interface StartedRun {
  runId: string;
  sessionId: string;
  run(onEvent: (event: RunEvent) => void): Promise<RunResult>;
  cancel(): void;
}

const modelHelp =
  "No model is configured. Set OPENAI_API_KEY (your OpenAI key), optionally TAPEDECK_MODEL " +
  "(default openai:gpt-4.1-mini; openai-chat:<model> for Chat Completions servers) and " +
  "OPENAI_BASE_URL (any OpenAI-compatible server), then restart the server.";

/** Runs of the agent started from the web, with their approvals and cancellation. */
export class AgentRuns {
  readonly #store: SessionStore;
  readonly #options: AgentModelOptions;
  readonly #runs = new Map<string, ActiveRun>();

  constructor(store: SessionStore, options: AgentModelOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** Whether a model is configured (never throws). */
  status(): ModelStatus {
    const variables: ModelStatus["variables"] = [
      "OPENAI_API_KEY",
      "TAPEDECK_MODEL",
      "OPENAI_BASE_URL",
    ];
    try {
      this.provider();
      return { model: this.#options.model, configured: true, variables };
    } catch (error) {
      if (error instanceof ModelNotConfiguredError) {
        return { model: this.#options.model, configured: false, message: error.message, variables };
      }
      const detail = error instanceof Error ? ` (${error.message})` : "";
      return {
        model: this.#options.model,
        configured: false,
        message: `${modelHelp}${detail}`,
        variables,
      };
    }
  }

  /** The provider for a run; throws `ModelNotConfiguredError` when none can be built. */
  provider(): LlmProvider {
    if (this.#options.provider !== undefined) return this.#options.provider();
    try {
      return resolveProvider(this.#options.model, this.#options.env ?? process.env).provider;
    } catch (error) {
      if (error instanceof LlmError || (error instanceof Error && error.name.startsWith("Llm"))) {
        throw new ModelNotConfiguredError(`${modelHelp} (${error.message})`);
      }
      throw error;
    }
  }

  /** Runs in progress. */
  list(): ActiveRunInfo[] {
    return [...this.#runs.values()].map((run) => ({
      runId: run.runId,
      sessionId: run.sessionId,
      resumed: run.resumed,
      policy: run.policy,
      status: run.cancelling
        ? "cancelling"
        : run.approvals.size > 0
          ? "waiting_approval"
          : "running",
      pendingApprovals: [...run.approvals.keys()],
    }));
  }

  /**
   * Initialises a run (new, resume or fork) and persists its first events. Throws before writing
   * anything for an unknown session (`SessionNotFoundError`), a busy one (`SessionBusyError`) or a
   * missing model (`ModelNotConfiguredError`).
   */
  async start(request: {
    input: string;
    sessionId?: string;
    forkFrom?: { sessionId: string; seq?: number };
    policy: ApprovalPolicy;
  }): Promise<StartedRun> {
    const provider = this.provider();
    let cwd = this.#options.cwd ?? process.cwd();
    const existing = request.sessionId ?? request.forkFrom?.sessionId;
    if (existing !== undefined) {
      // Tools run where the session was recorded, when that directory exists here.
      const header = await this.#store.readHeader(existing);
      if (existsSync(header.cwd)) cwd = header.cwd;
    }
    const initialized = await initializeRun({
      store: this.#store,
      input: request.input,
      cwd,
      policy: request.policy,
      model: this.#options.model,
      ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      ...(request.forkFrom === undefined ? {} : { forkFrom: request.forkFrom }),
    });
    const active: ActiveRun = {
      runId: initialized.runId,
      sessionId: initialized.sessionId,
      resumed: initialized.resumed,
      policy: request.policy,
      controller: new AbortController(),
      approvals: new Map(),
      cancelling: false,
    };
    this.#runs.set(active.runId, active);
    const choice = this.#options.tools ?? defaultTools();
    const tools =
      typeof choice === "function" ? choice(initialized.session.header.workspaceId) : choice;
    return {
      runId: active.runId,
      sessionId: active.sessionId,
      cancel: () => this.cancel(active.runId),
      run: async (onEvent) => {
        try {
          return await runTurn({
            run: initialized,
            provider,
            model: this.#options.model,
            tools,
            policy: request.policy,
            cwd,
            signal: active.controller.signal,
            onEvent,
            approve: (approval, signal) =>
              new Promise<ApprovalDecision>((resolve) => {
                const settle = (decision: ApprovalDecision) => {
                  active.approvals.delete(approval.callId);
                  resolve(decision);
                };
                active.approvals.set(approval.callId, settle);
                signal.addEventListener("abort", () => settle("cancelled"), { once: true });
              }),
          });
        } finally {
          this.#runs.delete(active.runId);
        }
      },
    };
  }

  /** Answers a pending approval. False when the run or the request is unknown. */
  decide(runId: string, callId: string, decision: ApprovalDecision): boolean {
    const settle = this.#runs.get(runId)?.approvals.get(callId);
    if (settle === undefined) return false;
    settle(decision);
    return true;
  }

  /** Cancels a run. False when no such run is in progress. */
  cancel(runId: string): boolean {
    const run = this.#runs.get(runId);
    if (run === undefined) return false;
    run.cancelling = true;
    run.controller.abort();
    return true;
  }

  /** Cancels every run (server shutdown). */
  cancelAll(): void {
    for (const run of this.#runs.values()) run.controller.abort();
  }
}

/** One prompt, no session, no tools: the stateless `POST /api/agent`. */
export async function answerOnce(
  provider: LlmProvider,
  model: string,
  input: string,
  signal: AbortSignal,
): Promise<string> {
  let text = "";
  const providerModel = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
  for await (const part of provider.stream(
    { model: providerModel, input: [{ type: "message", role: "user", content: input }], tools: [] },
    { signal },
  )) {
    if (part.type === "text-delta") text += part.text;
    if (part.type === "response" && text === "") {
      for (const item of part.items) if (item.type === "message") text += item.content;
    }
  }
  return text;
}
