import path from "node:path";
import type { LlmOutputItem, LlmProvider, LlmRequest, ResponsePart } from "@tapedeck/llm";
import { requestDigest, toolsDigest } from "@tapedeck/llm";
import {
  type ApprovalDecision,
  type ApprovalPolicy,
  type FunctionCallEvent,
  type SessionEvent,
  type SessionEventDraft,
  TapedeckError,
  type TurnStatus,
  type Usage,
  uuidv7,
} from "@tapedeck/session";
import type { SessionWriter } from "@tapedeck/session-store";
import { COMPACTION_INSTRUCTIONS, estimateTokens, selectCompaction } from "./compaction";
import { splitModelId } from "./config";
import type { InitializedRun } from "./initialize-run";
import type { RunEvent, StopReason } from "./run-events";
import { toolDefinitions } from "./tool-set";
import {
  type AnyAgentTool,
  capOutput,
  DEFAULT_OUTPUT_CAP,
  type ToolKind,
} from "./tools/agent-tool";
import { localWorkspaceFs, type WorkspaceFs } from "./workspace-fs";

/** Default cap on model calls in one run. */
export const DEFAULT_MAX_MODEL_CALLS = 50;
/** Default estimated input size (tokens) above which the surface is compacted. */
export const DEFAULT_COMPACT_AT = 100_000;
/** Default number of most recent surface items a compaction keeps verbatim. */
export const DEFAULT_KEEP_LAST_ITEMS = 8;

/** What the surface is asked when a tool call needs a person's approval. */
export interface ApprovalRequest {
  runId: string;
  sessionId: string;
  callId: string;
  name: string;
  /** Parsed arguments. */
  input: unknown;
  title: string;
  kind: ToolKind;
  /** Absolute paths the call touches. */
  locations: string[];
  options: ApprovalDecision[];
}

/** Answers an approval request; `signal` aborts when the run is cancelled meanwhile. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

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
  /** Receives run events, in order. Exceptions thrown here are ignored. */
  onEvent?: (event: RunEvent) => void;
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
   * Compact before the first model call whatever the size (on-demand compaction): everything but
   * the latest item (and the instructions) is summarized.
   */
  compactNow?: boolean;
  /** Only compact (with `compactNow`): no model call for an answer. */
  compactOnly?: boolean;
  /** Instructions sent with each request (the goal is appended when the session has one). */
  instructions?: string;
  /** Characters kept of one tool output (default 32,000). */
  outputCap?: number;
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

class RunCancelled extends Error {
  constructor() {
    super("run cancelled");
  }
}

function addUsage(total: Usage, usage: Usage | undefined): void {
  if (usage === undefined) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  if (usage.cachedInputTokens !== undefined) {
    total.cachedInputTokens = (total.cachedInputTokens ?? 0) + usage.cachedInputTokens;
  }
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: text.trim() === "" ? {} : JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function errorText(message: string): string {
  return message.startsWith("Error") ? message : `Error: ${message}`;
}

/** Serializes appends: the writer takes one batch at a time, in call order. */
function serialWriter(writer: SessionWriter) {
  let chain: Promise<unknown> = Promise.resolve();
  return (drafts: SessionEventDraft[]): Promise<SessionEvent[]> => {
    const next = chain.then(() => writer.append(drafts));
    chain = next.catch(() => undefined);
    return next;
  };
}

/**
 * Runs one turn to its end: model calls (each recorded as `model/request`, one `assistant/chunk`
 * per streamed delta, `model/response`, then the `message` / `function_call` items), tool calls
 * (approved per policy, run in parallel, outputs citing their calls), again, until the model
 * answers without tool calls, `maxModelCalls` is reached, the run is cancelled or fails. Always
 * ends the turn with `turn/end` and closes the writer; never throws for a model or tool failure
 * (the result says `failed`), only when the log itself cannot be written.
 */
export async function runTurn(options: RunTurnOptions): Promise<RunResult> {
  const { run, provider } = options;
  const { writer, runId, sessionId } = run;
  const signal = options.signal ?? new AbortController().signal;
  const emit = (event: RunEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a surface that fails to render must not break the log
    }
  };
  const write = serialWriter(writer);
  const fs = options.fs ?? localWorkspaceFs;
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const definitions = toolDefinitions(options.tools);
  const definitionsDigest = toolsDigest(definitions);
  const providerModel = splitModelId(options.model).model;
  const maxModelCalls = options.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS;
  const total: Usage = { inputTokens: 0, outputTokens: 0 };
  const alwaysAllowed = options.alwaysAllowed ?? new Set<string>();
  const cap = options.outputCap ?? DEFAULT_OUTPUT_CAP;

  emit({
    type: "run_started",
    runId,
    sessionId,
    resumed: run.resumed,
    policy: options.policy,
    model: options.model,
  });

  const instructionsFor = (): string | undefined => {
    const goal = writer.session.goal;
    const parts = [options.instructions, goal === null ? undefined : `Current goal: ${goal}`];
    const text = parts
      .filter((part): part is string => part !== undefined && part !== "")
      .join("\n\n");
    return text === "" ? undefined : text;
  };

  /** Ends a model call the person cancelled; keeps the text they already saw. */
  const cancelledCall = async (
    requestId: string,
    text: string,
    visible: boolean,
  ): Promise<never> => {
    await write([{ type: "model/response", runId, requestId, finishReason: "cancelled" }]);
    if (visible && text !== "") {
      // Keep what the person already saw, so the history matches the screen.
      await write([{ type: "message", runId, role: "assistant", content: text }]);
    }
    throw new RunCancelled();
  };

  /** One recorded model call. Returns the final response, or throws RunCancelled / the error. */
  const modelCall = async (
    request: LlmRequest,
    inputItems: number[],
    digestTools: string,
    onText: ((requestId: string, text: string) => void) | undefined,
  ): Promise<{ response: ResponsePart; requestId: string }> => {
    const requestId = uuidv7();
    await write([
      {
        type: "model/request",
        runId,
        requestId,
        provider: provider.id,
        model: request.model,
        inputDigest: requestDigest(request),
        toolsDigest: digestTools,
        inputItems,
      },
    ]);
    let index = 0;
    let text = "";
    let response: ResponsePart | undefined;
    try {
      for await (const part of provider.stream(request, { signal })) {
        if (part.type === "text-delta") {
          await write([
            { type: "assistant/chunk", runId, requestId, index, delta: { text: part.text } },
          ]);
          index += 1;
          text += part.text;
          onText?.(requestId, part.text);
        } else if (part.type === "tool-call-delta") {
          const delta =
            part.name === undefined
              ? { callId: part.callId, arguments: part.arguments }
              : { callId: part.callId, name: part.name, arguments: part.arguments };
          await write([{ type: "assistant/chunk", runId, requestId, index, delta }]);
          index += 1;
        } else {
          response = part;
        }
      }
    } catch (error) {
      if (signal.aborted) await cancelledCall(requestId, text, onText !== undefined);
      const code = TapedeckError.isInstance(error) ? error.code : "model_error";
      const message = (error as Error).message ?? String(error);
      await write([
        {
          type: "model/response",
          runId,
          requestId,
          finishReason: "error",
          error: { code, message },
        },
      ]);
      throw error;
    }
    if (response === undefined && signal.aborted) {
      await cancelledCall(requestId, text, onText !== undefined);
    }
    if (response === undefined) {
      const message = "the model stream ended without a response";
      await write([
        {
          type: "model/response",
          runId,
          requestId,
          finishReason: "error",
          error: { code: "server", message },
        },
      ]);
      throw new TapedeckError("MODEL_STREAM_INCOMPLETE", message);
    }
    await write([
      {
        type: "model/response",
        runId,
        requestId,
        finishReason: response.finishReason,
        ...(response.usage === undefined ? {} : { usage: response.usage }),
      },
    ]);
    return { response, requestId };
  };

  const compact = async (force: boolean): Promise<void> => {
    const surface = writer.session.surface;
    if (!force) {
      const threshold = options.compactAt ?? DEFAULT_COMPACT_AT;
      if (estimateTokens(surface.map((entry) => entry.item)) <= threshold) return;
    }
    // On demand, everything but the latest item (the request itself) is summarized.
    const keepLast = force ? 1 : (options.keepLastItems ?? DEFAULT_KEEP_LAST_ITEMS);
    const replaces = selectCompaction(surface, keepLast);
    if (replaces.length === 0) return;
    const chosen = new Set(replaces);
    const input = surface.filter((entry) => chosen.has(entry.seq)).map((entry) => entry.item);
    const request: LlmRequest = {
      model: providerModel,
      instructions: COMPACTION_INSTRUCTIONS,
      input,
      tools: [],
    };
    const { response } = await modelCall(request, replaces, toolsDigest([]), undefined);
    addUsage(total, response.usage);
    const summary = response.items
      .filter(
        (item): item is Extract<LlmOutputItem, { type: "message" }> => item.type === "message",
      )
      .map((item) => item.content)
      .join("\n")
      .trim();
    if (summary === "") return;
    const [event] = await write([
      { type: "compaction", runId, summary, surfaceOp: "replace", replaces },
    ]);
    if (event !== undefined) {
      emit({ type: "compaction", runId, seq: event.seq, summary, replaces });
    }
  };

  const finishCall = async (call: FunctionCallEvent, output: string, isError: boolean) => {
    const text = isError ? errorText(capOutput(output, cap)) : capOutput(output, cap);
    await write([
      {
        type: "function_call_output",
        runId,
        callId: call.callId,
        output: text,
        isError,
        sourceEventSeqs: [call.seq],
      },
    ]);
    emit({
      type: "tool_result",
      runId,
      callId: call.callId,
      name: call.name,
      output: text,
      isError,
    });
  };

  /** Decides whether a call may run; writes approval events. Returns an error text if not. */
  const authorize = async (
    call: FunctionCallEvent,
    tool: AnyAgentTool,
    input: unknown,
  ): Promise<string | undefined> => {
    if (tool.access === "read") return undefined;
    if (options.policy.approval === "auto") return undefined;
    if (options.policy.approval === "deny") {
      return `${call.name} was not run: this session is read-only (approval policy "deny").`;
    }
    if (alwaysAllowed.has(tool.name)) return undefined;
    const decisionOptions: ApprovalDecision[] = ["allow_once", "allow_always", "reject"];
    await write([
      { type: "approval/request", runId, callId: call.callId, options: decisionOptions },
    ]);
    // The request must be durable before a person may take minutes to answer.
    await writer.sync();
    emit({
      type: "approval_request",
      runId,
      callId: call.callId,
      name: call.name,
      title: tool.title(input),
      options: decisionOptions,
    });
    let decision: ApprovalDecision;
    if (options.approve === undefined) {
      decision = "reject";
    } else {
      const cancelled = new Promise<ApprovalDecision>((resolve) => {
        if (signal.aborted) resolve("cancelled");
        signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
      });
      decision = await Promise.race([
        options.approve(
          {
            runId,
            sessionId,
            callId: call.callId,
            name: call.name,
            input,
            title: tool.title(input),
            kind: tool.kind,
            locations: tool.locations(input).map((location) => path.resolve(options.cwd, location)),
            options: decisionOptions,
          },
          signal,
        ),
        cancelled,
      ]);
    }
    await write([{ type: "approval/decision", runId, callId: call.callId, decision }]);
    emit({ type: "approval_decision", runId, callId: call.callId, decision });
    if (decision === "allow_always") alwaysAllowed.add(tool.name);
    if (decision === "allow_once" || decision === "allow_always") return undefined;
    if (decision === "cancelled") throw new RunCancelled();
    return `The user rejected this ${call.name} call.`;
  };

  const runTools = async (calls: FunctionCallEvent[]): Promise<void> => {
    const ready: { call: FunctionCallEvent; tool: AnyAgentTool; input: unknown }[] = [];
    for (const call of calls) {
      if (signal.aborted) throw new RunCancelled();
      const tool = tools.get(call.name);
      if (tool === undefined) {
        await finishCall(
          call,
          `Unknown tool ${JSON.stringify(call.name)}. Available: ${[...tools.keys()].join(", ")}.`,
          true,
        );
        continue;
      }
      const parsedJson = parseArguments(call.arguments);
      if (!parsedJson.ok) {
        await finishCall(call, `Arguments are not valid JSON: ${parsedJson.error}`, true);
        continue;
      }
      const parsed = tool.argsSchema.safeParse(parsedJson.value);
      if (!parsed.success) {
        const issues = parsed.error.issues
          .map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`)
          .join("; ");
        await finishCall(call, `Invalid arguments for ${call.name}: ${issues}`, true);
        continue;
      }
      const refusal = await authorize(call, tool, parsed.data);
      if (refusal !== undefined) {
        await finishCall(call, refusal, true);
        continue;
      }
      ready.push({ call, tool, input: parsed.data });
    }
    await Promise.all(
      ready.map(async ({ call, tool, input }) => {
        emit({ type: "tool_started", runId, callId: call.callId });
        let output: string;
        let isError = false;
        try {
          output = await tool.execute(input, { cwd: options.cwd, fs, signal, sessionId });
        } catch (error) {
          output = (error as Error).message ?? String(error);
          isError = true;
        }
        await finishCall(call, output, isError);
      }),
    );
    if (signal.aborted) throw new RunCancelled();
  };

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
        const entries = writer.session.surface;
        const instructions = instructionsFor();
        const request: LlmRequest = {
          model: providerModel,
          input: entries.map((entry) => entry.item),
          tools: definitions,
          ...(instructions === undefined ? {} : { instructions }),
        };
        const { response } = await modelCall(
          request,
          entries.map((entry) => entry.seq),
          definitionsDigest,
          (id, text) => emit({ type: "text_delta", runId, requestId: id, text }),
        );
        addUsage(total, response.usage);
        if (response.usage !== undefined) {
          emit({ type: "usage", runId, usage: response.usage, total: { ...total } });
        }
        const drafts: SessionEventDraft[] = response.items.map((item) =>
          item.type === "message"
            ? { type: "message", runId, role: "assistant", content: item.content }
            : {
                type: "function_call",
                runId,
                callId: item.callId,
                name: item.name,
                arguments: item.arguments,
              },
        );
        const written = drafts.length === 0 ? [] : await write(drafts);
        const calls_ = written.filter(
          (event): event is FunctionCallEvent => event.type === "function_call",
        );
        for (const call of calls_) {
          const tool = tools.get(call.name);
          const parsed = parseArguments(call.arguments);
          const input = parsed.ok ? parsed.value : call.arguments;
          const safe = tool?.argsSchema.safeParse(input);
          emit({
            type: "tool_call",
            runId,
            callId: call.callId,
            name: call.name,
            input,
            title: tool !== undefined && safe?.success ? tool.title(safe.data) : call.name,
            kind: tool?.kind ?? "other",
            locations:
              tool !== undefined && safe?.success
                ? tool.locations(safe.data).map((location) => path.resolve(options.cwd, location))
                : [],
          });
        }
        if (calls_.length === 0) {
          stopReason = response.finishReason === "length" ? "max_tokens" : "end_turn";
          break;
        }
        await runTools(calls_);
      }
    }
  } catch (error) {
    if (error instanceof RunCancelled || signal.aborted) {
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
    // Every call of this run gets an output before the turn ends (invariant: no orphan calls).
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
      emit({
        type: "tool_result",
        runId,
        callId: pending.callId,
        name: pending.name,
        output: message,
        isError: true,
      });
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
  if (failure !== undefined) emit({ type: "error", runId, ...failure });
  emit({ type: "run_finished", runId, status, stopReason, usage: { ...total } });
  return {
    runId,
    sessionId,
    status,
    stopReason,
    usage: total,
    ...(failure === undefined ? {} : { error: failure }),
  };
}
