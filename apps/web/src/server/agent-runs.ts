/**
 * Runs started from the web belong to the server, not to the page: the run is prepared by the
 * host (`host.startRun`), its approvals wait in the host's broker (`host.approvals`), and this
 * module only keeps what HTTP needs on top: the run's event stream so far (so a page that reloads
 * re-attaches and rebuilds its run card and approval cards from the same events), who is attached,
 * and the idle rule (a run waiting for an approval with nobody attached is cancelled after
 * `idleMs`). See `architecture/web-runs.md`.
 */
import { checkModelId, type Host, type RunEvent } from "@tapedeck/host";
import type { LlmProvider } from "@tapedeck/llm";
import type { ApprovalDecision, ApprovalPolicy } from "@tapedeck/session";
import { toHttpError } from "./http-errors";

/** Default of `TAPEDECK_WEB_RUN_IDLE_MS`: five minutes. */
export const DEFAULT_RUN_IDLE_MS = 5 * 60_000;

/** What the server needs of the host to run the agent. */
export type RunsHost = Pick<Host, "startRun" | "approvals" | "providerFor" | "config">;

/** Whether a model is configured, and if not exactly what to set. */
export interface ModelStatus {
  model: string;
  configured: boolean;
  /** Set when not configured: what the person must do. */
  message?: string;
  /** The variables that matter. */
  variables: ["OPENAI_API_KEY", "TAPEDECK_MODEL", "OPENAI_BASE_URL"];
}

/** An approval waiting for a person, as the page shows it (same fields as `approval_request`). */
export interface PendingApprovalInfo {
  callId: string;
  name: string;
  /** The whole command or path, hidden characters made visible. */
  title: string;
  hiddenCharacters: boolean;
  options: ApprovalDecision[];
  askedAt: string;
}

/** A run in progress, as `GET /api/agent/runs` and `GET /api/sessions/:id/run` show it. */
export interface ActiveRunInfo {
  runId: string;
  sessionId: string;
  resumed: boolean;
  policy: ApprovalPolicy;
  model: string;
  status: "running" | "waiting_approval" | "cancelling";
  /** Run events so far; the SSE `id` of an event is its 0-based index in this stream. */
  events: number;
  /** Clients following the run now. */
  attached: number;
  pendingApprovals: PendingApprovalInfo[];
}

/** One run event and its index in the run's stream. */
export interface IndexedRunEvent {
  index: number;
  event: RunEvent;
}

/** A client following a run: what it missed, then live events until the run ends. */
export interface RunAttachment {
  /** Events after the requested index that already happened. */
  backlog: IndexedRunEvent[];
  /** Whether the run has ended (no more events will come). */
  ended(): boolean;
  /** Stops following; the run goes on. */
  detach(): void;
}

/** What a follower is told. */
export interface RunListener {
  event(item: IndexedRunEvent): void;
  end(): void;
}

/** Options of {@link ServerRuns}. */
export interface ServerRunsOptions {
  /** Where new sessions work (the server's directory). */
  callerCwd: string;
  /** How long a run waiting for an approval may have nobody attached before it is cancelled. */
  idleMs: number;
  /** Called after a run ended and every event was delivered (e.g. to sync the index). */
  onEnded?: () => void;
}

interface LiveRun {
  info: Omit<ActiveRunInfo, "status" | "events" | "attached" | "pendingApprovals">;
  events: RunEvent[];
  listeners: Set<RunListener>;
  controller: AbortController;
  cancelling: boolean;
  ended: boolean;
  /** Approvals this run is waiting for right now. */
  waiting: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** Settles when the run has ended and its followers were told. */
  done: Promise<void>;
}

const modelHelp =
  "No model is configured. Set OPENAI_API_KEY (your OpenAI key), optionally TAPEDECK_MODEL " +
  "(default openai:gpt-4.1-mini; openai-chat:<model> for Chat Completions servers) and " +
  "OPENAI_BASE_URL (any OpenAI-compatible server), then restart the server.";

/** The runs this server drives, over the host's `startRun` and approval broker. */
export class ServerRuns {
  readonly #host: RunsHost;
  readonly #options: ServerRunsOptions;
  readonly #runs = new Map<string, LiveRun>();

  constructor(host: RunsHost, options: ServerRunsOptions) {
    this.#host = host;
    this.#options = options;
  }

  /** Whether a model is configured (never throws). */
  status(): ModelStatus {
    const model = this.#host.config.model;
    const variables: ModelStatus["variables"] = [
      "OPENAI_API_KEY",
      "TAPEDECK_MODEL",
      "OPENAI_BASE_URL",
    ];
    try {
      this.#host.providerFor(model);
      return { model, configured: true, variables };
    } catch (error) {
      const detail = error instanceof Error ? ` (${error.message})` : "";
      return { model, configured: false, message: `${modelHelp}${detail}`, variables };
    }
  }

  /** The configured model id (`openai:gpt-4.1-mini`). */
  get model(): string {
    return this.#host.config.model;
  }

  /** Whether this run is in progress. */
  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  /** The configured model's provider; throws `ModelNotConfiguredError` when none can be built. */
  provider(): LlmProvider {
    return this.#host.providerFor(this.#host.config.model);
  }

  /** Runs in progress. */
  list(): ActiveRunInfo[] {
    return [...this.#runs.values()].map((run) => this.#describe(run));
  }

  /** The run in progress on a session, if any. */
  ofSession(sessionId: string): ActiveRunInfo | undefined {
    for (const run of this.#runs.values()) {
      if (run.info.sessionId === sessionId) return this.#describe(run);
    }
    return undefined;
  }

  /**
   * Prepares a run with `host.startRun` (new, resume or fork; nothing written on failure) and
   * starts driving it at once: it runs whether or not anyone follows it.
   *
   * @throws SessionNotFoundError, SessionBusyError, SessionCwdMissingError,
   *   ModelNotConfiguredError (see `startRun`)
   */
  async start(request: {
    input: string;
    sessionId?: string;
    forkFrom?: { sessionId: string; seq?: number };
    policy: ApprovalPolicy;
  }): Promise<{ runId: string; sessionId: string }> {
    const prepared = await this.#host.startRun({ ...request, callerCwd: this.#options.callerCwd });
    const run: LiveRun = {
      info: {
        runId: prepared.runId,
        sessionId: prepared.sessionId,
        resumed: prepared.resumed,
        policy: prepared.policy,
        model: prepared.model,
      },
      events: [],
      listeners: new Set(),
      controller: new AbortController(),
      cancelling: false,
      ended: false,
      waiting: 0,
      idleTimer: undefined,
      done: Promise.resolve(),
    };
    this.#runs.set(run.info.runId, run);
    const emit = (event: RunEvent) => {
      const item = { index: run.events.length, event };
      run.events.push(event);
      for (const listener of run.listeners) listener.event(item);
    };
    const broker = this.#host.approvals;
    run.done = prepared
      .run({
        onEvent: emit,
        signal: run.controller.signal,
        approve: async (approval, signal) => {
          run.waiting += 1;
          this.#checkIdle(run);
          try {
            return await broker.approver(approval, signal);
          } finally {
            run.waiting -= 1;
            this.#checkIdle(run);
          }
        },
      })
      .then(({ runId, sessionId, status, stopReason, usage }) => {
        // `/goal …` on a session is recorded by startRun without a turn, so nothing was emitted:
        // the page still sees the run start and end (and re-reads the session).
        if (run.events.length > 0) return;
        const { resumed, policy, model } = run.info;
        emit({ type: "run_started", runId, sessionId, resumed, policy, model });
        emit({ type: "run_finished", runId, status, stopReason, usage });
      })
      .catch((error: unknown) => {
        const { status, body } = toHttpError(error);
        if (status === 500) console.error(error);
        emit({ type: "error", runId: run.info.runId, ...body.error });
      })
      .finally(() => {
        run.ended = true;
        clearTimeout(run.idleTimer);
        this.#runs.delete(run.info.runId);
        for (const listener of run.listeners) listener.end();
        run.listeners.clear();
        this.#options.onEnded?.();
      });
    return { runId: run.info.runId, sessionId: run.info.sessionId };
  }

  /**
   * Follows a run from after event `after` (-1: from its first event). Undefined when no such run
   * is in progress (it ended: its log has everything).
   */
  attach(runId: string, after: number, listener: RunListener): RunAttachment | undefined {
    const run = this.#runs.get(runId);
    if (run === undefined) return undefined;
    const start = Math.max(0, Math.min(after + 1, run.events.length));
    const backlog = run.events.slice(start).map((event, offset) => ({
      index: start + offset,
      event,
    }));
    run.listeners.add(listener);
    this.#checkIdle(run);
    return {
      backlog,
      ended: () => run.ended,
      detach: () => {
        if (!run.listeners.delete(listener)) return;
        this.#checkIdle(run);
      },
    };
  }

  /** Answers a pending approval through the host's broker. False when nothing waits for it. */
  decide(runId: string, callId: string, decision: ApprovalDecision): boolean {
    return this.#host.approvals.resolve(runId, callId, decision);
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
    for (const runId of [...this.#runs.keys()]) this.cancel(runId);
  }

  /**
   * Settles when every run now in progress has ended (its log closed with `turn/end`), or after
   * `timeoutMs`, whichever comes first.
   */
  async settled(timeoutMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.all([...this.#runs.values()].map((run) => run.done)), timeout]);
    clearTimeout(timer);
  }

  /** The idle rule: waiting for a person with nobody attached starts the clock; either ends it. */
  #checkIdle(run: LiveRun): void {
    const idle = run.waiting > 0 && run.listeners.size === 0 && !run.ended;
    if (!idle) {
      clearTimeout(run.idleTimer);
      run.idleTimer = undefined;
      return;
    }
    if (run.idleTimer !== undefined) return;
    run.idleTimer = setTimeout(() => {
      run.idleTimer = undefined;
      this.cancel(run.info.runId);
    }, this.#options.idleMs);
    run.idleTimer.unref();
  }

  #describe(run: LiveRun): ActiveRunInfo {
    const pendingApprovals = this.#host.approvals.pending(run.info.runId).map(
      ({ request, askedAt }): PendingApprovalInfo => ({
        callId: request.callId,
        name: request.name,
        title: request.title,
        hiddenCharacters: request.hiddenCharacters,
        options: request.options,
        askedAt: askedAt.toISOString(),
      }),
    );
    return {
      ...run.info,
      status: run.cancelling
        ? "cancelling"
        : pendingApprovals.length > 0
          ? "waiting_approval"
          : "running",
      events: run.events.length,
      attached: run.listeners.size,
      pendingApprovals,
    };
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
  for await (const part of provider.stream(
    {
      model: checkModelId(model).model,
      input: [{ type: "message", role: "user", content: input }],
      tools: [],
    },
    { signal },
  )) {
    if (part.type === "text-delta") text += part.text;
    if (part.type === "response" && text === "") {
      for (const item of part.items) if (item.type === "message") text += item.content;
    }
  }
  return text;
}
