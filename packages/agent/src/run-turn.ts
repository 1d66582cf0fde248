import type { LlmOutputItem, LlmProvider, LlmRequest } from "@tapedeck/llm";
import { parseModelId, toolsDigest } from "@tapedeck/llm";
import {
  type ApprovalPolicy,
  type FunctionCallEvent,
  type Session,
  type SessionEvent,
  type SessionEventDraft,
  sessionCallId,
  TapedeckError,
  type TurnStatus,
  type Usage,
} from "@tapedeck/session";
import { compactTurn } from "./compact-turn";
import type { InitializedRun } from "./initialize-run";
import type { LiveNotice } from "./live-notices";
import { recordedModelCall } from "./model-call";
import { type KnownSecret, knownSecrets } from "./secrets";
import { runToolCalls, UNNAMED_TOOL } from "./tool-calls";
import { toolDefinitions } from "./tool-set";
import { type AnyAgentTool, DEFAULT_OUTPUT_CAP } from "./tools/agent-tool";
import {
  type Approver,
  addUsage,
  RunCancelled,
  serialWriter,
  type TurnContext,
} from "./turn-context";
import { localWorkspaceFs, type WorkspaceFs } from "./workspace-fs";

export type { ApprovalRequest, Approver } from "./turn-context";

/** Why a run stopped (the ACP `StopReason` values this runtime produces). */
export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

/** Default cap on model calls in one run. */
export const DEFAULT_MAX_MODEL_CALLS = 50;
/** Default estimated input size (tokens) above which the surface is compacted. */
export const DEFAULT_COMPACT_AT = 100_000;
/** Default number of most recent surface items a compaction keeps verbatim. */
export const DEFAULT_KEEP_LAST_ITEMS = 8;

/** Options of {@link runTurn}. */
export interface RunTurnOptions {
  /** From `initializeRun`; its writer is closed when the turn ends. */
  run: InitializedRun;
  provider: LlmProvider;
  /** Model id as in `turn/start` (`openai:gpt-4.1-mini`); the part after `:` goes to the provider. */
  model: string;
  tools: readonly AnyAgentTool[];
  policy: ApprovalPolicy;
  /** Workspace root for tools. */
  cwd: string;
  /** File access for tools (default: local disk). */
  fs?: WorkspaceFs;
  /** Cancels the run: the stream stops, commands are killed, `turn/end` is `cancelled`. */
  signal?: AbortSignal;
  /**
   * Receives each batch of events this turn writes, as committed (seq and ts assigned), in log
   * order, before the turn goes on; what a surface shows live is projected from these (the same
   * projection that shows the session on load). Exceptions thrown here are ignored.
   */
  onCommit?: (events: readonly SessionEvent[]) => void;
  /**
   * Receives what no log event records (`LiveNotice`: a tool call starting), in order with the
   * commits. Exceptions thrown here are ignored.
   */
  onNotice?: (notice: LiveNotice) => void;
  /** Asked for write/execute tools when the policy is `ask`; without one, such calls are rejected. */
  approve?: Approver;
  /** Tool names the person allowed "always" (shared across runs of one session by the caller). */
  alwaysAllowed?: Set<string>;
  /** Default 50; reaching it stops with `max_turn_requests`. */
  maxModelCalls?: number;
  /** Estimated input tokens above which the surface is compacted before a model call. */
  compactAt?: number;
  /** Items a compaction keeps verbatim (default 8). */
  keepLastItems?: number;
  /**
   * Compact before the first model call whatever the size (on-demand compaction, recorded with
   * `trigger: "user"`): everything but the latest item (none with `compactOnly`) and the
   * instructions is summarized.
   */
  compactNow?: boolean;
  /** Only compact (with `compactNow`): no model call for an answer. */
  compactOnly?: boolean;
  /** Instructions sent with each request (the goal is appended when the session has one). */
  instructions?: string;
  /** Characters kept of one tool output (default 32,000). */
  outputCap?: number;
  /**
   * Secret values redacted from every tool output before it is logged or sent to the model;
   * default `knownSecrets(process.env)` (the API key, the web token, URL credentials, …).
   */
  secrets?: readonly KnownSecret[];
}

/**
 * The events of a model response's items. Each call gets a session-unique `callId`
 * (`sessionCallId`): a provider that reuses its ids across responses must not break the session;
 * its own id is kept in `providerCallId`, and the model is sent `callId` on both the call and its
 * output, so it always sees consistent pairs.
 */
function outputDrafts(
  session: Session,
  runId: string,
  items: readonly LlmOutputItem[],
): SessionEventDraft[] {
  const taken = new Set<string>();
  return items.map((item): SessionEventDraft => {
    if (item.type === "message") {
      return { type: "message", runId, role: "assistant", content: item.content };
    }
    const callId = sessionCallId(session, item.callId, taken);
    taken.add(callId);
    return {
      type: "function_call",
      runId,
      callId,
      name: item.name === "" ? UNNAMED_TOOL : item.name,
      arguments: item.arguments,
      ...(callId === item.callId ? {} : { providerCallId: item.callId }),
    };
  });
}

/** True when the session's model-visible history holds a system message (its seed's prompt). */
function hasSystemMessage(session: Session): boolean {
  return session.surface.some(
    (entry) => entry.item.type === "message" && entry.item.role === "system",
  );
}

/**
 * The instructions sent with each request: the run's system prompt when the session's history
 * has none, the caller's instructions, the session's goal; `undefined` when all are empty.
 */
function turnInstructions(
  session: Session,
  systemPrompt: string | undefined,
  instructions: string | undefined,
): string | undefined {
  const goal = session.goal;
  const parts = [
    // Whatever the session's origin, the model works under Tapedeck's system prompt: a session
    // without one in its history (imported from another tool) gets the run's with each request.
    hasSystemMessage(session) ? undefined : systemPrompt,
    instructions,
    goal === null ? undefined : `Current goal: ${goal}`,
  ];
  const text = parts
    .filter((part): part is string => part !== undefined && part !== "")
    .join("\n\n");
  return text === "" ? undefined : text;
}

/**
 * One model call over the session's surface, recorded, and its items written. Returns why the
 * turn stops (a refusal, or an answer without tool calls), or the calls to run next.
 */
async function modelStep(
  context: TurnContext,
  options: {
    provider: RunTurnOptions["provider"];
    model: string;
    tools: LlmRequest["tools"];
    toolsDigest: string;
    instructions: string | undefined;
    total: Usage;
  },
): Promise<{ stop: StopReason } | { calls: FunctionCallEvent[] }> {
  const { writer, runId, write } = context;
  const entries = writer.session.surface;
  const request: LlmRequest = {
    model: options.model,
    input: entries.map((entry) => entry.item),
    tools: options.tools,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  };
  const { response } = await recordedModelCall(
    context,
    options.provider,
    request,
    entries.map((entry) => entry.seq),
    options.toolsDigest,
  );
  addUsage(options.total, response.usage);
  const refusal = response.refusal;
  const drafts = outputDrafts(writer.session, runId, response.items);
  if (refusal !== undefined && refusal !== "") {
    // The refusal's words join the history as an assistant message, so the log, a replayed
    // session and the next model call show what the model said.
    drafts.push({ type: "message", runId, role: "assistant", content: refusal });
  }
  const written = drafts.length === 0 ? [] : await write(drafts);
  const calls = written.filter(
    (event): event is FunctionCallEvent => event.type === "function_call",
  );
  // A refusal ends the turn (completed): calls asked for next to it do not run, they get error
  // outputs when the turn ends.
  if (refusal !== undefined) return { stop: "refusal" };
  if (calls.length === 0) {
    return { stop: response.finishReason === "length" ? "max_tokens" : "end_turn" };
  }
  return { calls };
}

/**
 * Ends the turn: an error output for every call still without one (invariant: no orphan calls),
 * the failure as an `error` event, `turn/end`; then closes the writer.
 */
async function endTurn(
  context: TurnContext,
  status: TurnStatus,
  total: Usage,
  failure: { code: string; message: string } | undefined,
): Promise<void> {
  const { writer, runId, write } = context;
  try {
    for (const pending of writer.session.pendingCalls) {
      const message =
        status === "cancelled"
          ? "Error: the run was cancelled before this tool call finished."
          : "Error: the run ended before this tool call finished.";
      await write([
        {
          type: "function_call_output",
          runId,
          callId: pending.callId,
          output: message,
          isError: true,
          sourceEventSeqs: [pending.seq],
        },
      ]);
    }
    if (failure !== undefined) {
      await write([{ type: "error", runId, code: failure.code, message: failure.message }]);
    }
    await write([
      {
        type: "turn/end",
        runId,
        status,
        usage: { ...total },
        ...(failure === undefined ? {} : { error: failure }),
      },
    ]);
  } finally {
    await writer.close();
  }
}

/** How a run ended. */
export interface RunResult {
  runId: string;
  sessionId: string;
  status: TurnStatus;
  stopReason: StopReason;
  usage: Usage;
  error?: { code: string; message: string };
}

/**
 * Runs one turn to its end: model calls (each recorded as `model/request`, one `assistant/chunk`
 * per streamed delta, `model/response`, then the `message` / `function_call` items), tool calls
 * (approved per policy, run in parallel, outputs citing their calls), again, until the model
 * answers without tool calls or refuses (stop reason `refusal`), `maxModelCalls` is reached, the
 * run is cancelled or fails. Always
 * ends the turn with `turn/end` and closes the writer; never throws for a model or tool failure
 * (the result says `failed`), only when the log itself cannot be written.
 */
export async function runTurn(options: RunTurnOptions): Promise<RunResult> {
  const { run, provider } = options;
  const { writer, runId, sessionId } = run;
  const signal = options.signal ?? new AbortController().signal;
  const notice = (event: LiveNotice) => {
    try {
      options.onNotice?.(event);
    } catch {
      // a surface that fails to render must not break the log
    }
  };
  const write = serialWriter(writer, (events) => {
    try {
      options.onCommit?.(events);
    } catch {
      // a surface that fails to render must not break the log
    }
  });
  const context: TurnContext = { runId, sessionId, writer, signal, write, notice };
  const fs = options.fs ?? localWorkspaceFs;
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const definitions = toolDefinitions(options.tools);
  const definitionsDigest = toolsDigest(definitions);
  const providerModel = parseModelId(options.model).model;
  const maxModelCalls = options.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS;
  const total: Usage = { inputTokens: 0, outputTokens: 0 };
  const alwaysAllowed = options.alwaysAllowed ?? new Set<string>();
  const secrets = options.secrets ?? knownSecrets(process.env);
  const cap = options.outputCap ?? DEFAULT_OUTPUT_CAP;

  const compact = (force: boolean) =>
    compactTurn(context, {
      provider,
      model: providerModel,
      force,
      compactAt: options.compactAt ?? DEFAULT_COMPACT_AT,
      // On demand everything is summarized, but the request when it came with one.
      keepLastItems: force
        ? options.compactOnly
          ? 0
          : 1
        : (options.keepLastItems ?? DEFAULT_KEEP_LAST_ITEMS),
      total,
    });

  let status: TurnStatus = "completed";
  let stopReason: StopReason = "end_turn";
  let failure: { code: string; message: string } | undefined;
  try {
    if (options.compactNow) await compact(true);
    if (!options.compactOnly) {
      for (let calls = 0; ; calls += 1) {
        if (signal.aborted) throw new RunCancelled();
        if (calls >= maxModelCalls) {
          stopReason = "max_turn_requests";
          break;
        }
        await compact(false);
        const step = await modelStep(context, {
          provider,
          model: providerModel,
          tools: definitions,
          toolsDigest: definitionsDigest,
          instructions: turnInstructions(writer.session, run.systemPrompt, options.instructions),
          total,
        });
        if ("stop" in step) {
          stopReason = step.stop;
          break;
        }
        await runToolCalls(context, step.calls, {
          tools,
          policy: options.policy,
          approve: options.approve,
          alwaysAllowed,
          cwd: options.cwd,
          fs,
          cap,
          privateRoots: run.home === undefined ? [] : [run.home],
          secrets,
          ...(run.checkpoints === undefined ? {} : { checkpoints: run.checkpoints }),
        });
      }
    }
  } catch (error) {
    if (RunCancelled.isInstance(error) || signal.aborted) {
      status = "cancelled";
      stopReason = "cancelled";
    } else {
      status = "failed";
      failure = {
        code: TapedeckError.isInstance(error) ? error.code : "INTERNAL",
        message: (error as Error).message ?? String(error),
      };
    }
  }
  try {
    await endTurn(context, status, total, failure);
  } finally {
    // The run's file-system watcher (if any) goes with the run.
    await run.checkpoints?.close();
  }
  return {
    runId,
    sessionId,
    status,
    stopReason,
    usage: total,
    ...(failure === undefined ? {} : { error: failure }),
  };
}
