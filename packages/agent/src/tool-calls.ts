import path from "node:path";
import {
  type ApprovalDecision,
  type ApprovalPolicy,
  type FunctionCallEvent,
  PROCESS_LEFT_RUNNING_EVENT,
  PROCESS_START_EVENT,
} from "@tapedeck/session";
import { approvalTitle } from "./approval-title";
import type { RunCheckpoints } from "./run-checkpoints";
import { type KnownSecret, redactSecrets } from "./secrets";
import { isGitMetadataPath } from "./sensitive-paths";
import { type AnyAgentTool, capOutput } from "./tools/agent-tool";
import { type Approver, RunCancelled, type TurnContext } from "./turn-context";
import type { WorkspaceFs } from "./workspace-fs";

/**
 * The name logged for a tool call whose name the model left empty (the log requires one): the
 * call gets an error output like an unknown tool, and the other calls of the response still run.
 */
export const UNNAMED_TOOL = "unnamed_tool";

/** What tool execution needs beyond the turn context. */
export interface ToolRunOptions {
  tools: ReadonlyMap<string, AnyAgentTool>;
  policy: ApprovalPolicy;
  approve: Approver | undefined;
  alwaysAllowed: Set<string>;
  cwd: string;
  fs: WorkspaceFs;
  /** Characters kept of one output. */
  cap: number;
  /** Directories tools never touch (the home). */
  privateRoots: readonly string[];
  /** Secret values replaced in every output before it is logged or sent to the model. */
  secrets: readonly KnownSecret[];
  /** Checkpoints after each tool that may change files (absent: none). */
  checkpoints?: RunCheckpoints;
}

/** True for a tool that may change the workspace's files: any but a read-only built-in. */
function mayChangeFiles(call: FunctionCallEvent, tool: AnyAgentTool): boolean {
  return tool.access !== "read" || call.name.startsWith("mcp__");
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: text.trim() === "" ? {} : JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Arguments as JSON when they parse, else the raw text (for display). */
export function argumentsForDisplay(text: string): unknown {
  const parsed = parseArguments(text);
  return parsed.ok ? parsed.value : text;
}

function errorText(message: string): string {
  return message.startsWith("Error") ? message : `Error: ${message}`;
}

/**
 * Authorizes the calls of one model response in order (approval events written and synced before
 * a person is asked), then runs the authorized ones in parallel; every call gets exactly one
 * output citing it. Bad arguments, unknown tools, refusals and tool failures become error outputs.
 *
 * @throws RunCancelled when the run is cancelled (outputs already written stay; `runTurn` gives
 * the rest error outputs).
 */
export async function runToolCalls(
  context: TurnContext,
  calls: readonly FunctionCallEvent[],
  options: ToolRunOptions,
): Promise<void> {
  const { signal } = context;
  const ready: ReadyCall[] = [];
  for (const call of calls) {
    if (signal.aborted) throw new RunCancelled();
    const checked = await checkCall(context, options, call);
    if (checked === undefined) continue;
    const refusal = await authorize(context, options, checked);
    if (refusal !== undefined) await finishCall(context, options, call, refusal, true);
    else ready.push(checked);
  }
  await Promise.all(ready.map((checked) => executeCall(context, options, checked)));
  if (signal.aborted) throw new RunCancelled();
}

/** A call whose tool exists and whose arguments parse. */
interface ReadyCall {
  call: FunctionCallEvent;
  tool: AnyAgentTool;
  input: unknown;
}

/** Writes the call's one output: secrets redacted, capped, with a checkpoint when it may write. */
async function finishCall(
  context: TurnContext,
  options: ToolRunOptions,
  call: FunctionCallEvent,
  output: string,
  isError: boolean,
  ran?: AnyAgentTool,
): Promise<void> {
  const redacted = redactSecrets(output, options.secrets);
  const capped = capOutput(redacted, options.cap);
  const text = isError ? errorText(capped) : capped;
  const checkpoint =
    ran !== undefined && mayChangeFiles(call, ran) ? await options.checkpoints?.take() : undefined;
  await context.write([
    {
      type: "function_call_output",
      runId: context.runId,
      callId: call.callId,
      output: text,
      isError,
      sourceEventSeqs: [call.seq],
      ...(checkpoint === undefined ? {} : { checkpoint }),
    },
  ]);
}

/**
 * The call's tool and parsed arguments; or, for an unknown tool or arguments that do not parse,
 * `undefined` once the call's error output is written.
 */
async function checkCall(
  context: TurnContext,
  options: ToolRunOptions,
  call: FunctionCallEvent,
): Promise<ReadyCall | undefined> {
  const { tools } = options;
  const tool = tools.get(call.name);
  if (tool === undefined) {
    const available = [...tools.keys()].join(", ");
    await finishCall(
      context,
      options,
      call,
      call.name === UNNAMED_TOOL
        ? `This tool call had an empty name; call a tool by its name. Available: ${available}.`
        : `Unknown tool ${JSON.stringify(call.name)}. Available: ${available}.`,
      true,
    );
    return undefined;
  }
  const parsedJson = parseArguments(call.arguments);
  if (!parsedJson.ok) {
    await finishCall(
      context,
      options,
      call,
      `Arguments are not valid JSON: ${parsedJson.error}`,
      true,
    );
    return undefined;
  }
  const parsed = tool.argsSchema.safeParse(parsedJson.value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`)
      .join("; ");
    await finishCall(context, options, call, `Invalid arguments for ${call.name}: ${issues}`, true);
    return undefined;
  }
  return { call, tool, input: parsed.data };
}

/** Decides whether a call may run; writes approval events. Returns an error text if not. */
async function authorize(
  context: TurnContext,
  options: ToolRunOptions,
  { call, tool, input }: ReadyCall,
): Promise<string | undefined> {
  const { runId, write, writer } = context;
  if (tool.access === "read") return undefined;
  const locations = tool.locations(input).map((location) => path.resolve(options.cwd, location));
  // A write inside .git/ can make git run programs: a person decides, even under auto.
  const sensitive = locations.some(isGitMetadataPath);
  if (options.policy.approval === "auto" && !sensitive) return undefined;
  if (options.policy.approval === "deny") {
    return `${call.name} was not run: this session is read-only (approval policy "deny").`;
  }
  if (options.alwaysAllowed.has(tool.name) && !sensitive) return undefined;
  const decisionOptions: ApprovalDecision[] = ["allow_once", "allow_always", "reject"];
  await write([{ type: "approval/request", runId, callId: call.callId, options: decisionOptions }]);
  // The request must be durable before a person may take minutes to answer.
  await writer.sync();
  const decision =
    options.approve === undefined
      ? "reject"
      : await askPerson(context, options.approve, {
          runId,
          sessionId: context.sessionId,
          callId: call.callId,
          name: call.name,
          input,
          ...approvalTitle(tool, input, locations),
          kind: tool.kind,
          locations,
          options: decisionOptions,
        });
  await write([{ type: "approval/decision", runId, callId: call.callId, decision }]);
  if (decision === "allow_always") options.alwaysAllowed.add(tool.name);
  if (decision === "allow_once" || decision === "allow_always") return undefined;
  if (decision === "cancelled") throw new RunCancelled();
  return `The user rejected this ${call.name} call.`;
}

/** The person's answer to an approval request, or `cancelled` when the run is cancelled first. */
async function askPerson(
  { signal }: TurnContext,
  approve: NonNullable<ToolRunOptions["approve"]>,
  request: Parameters<NonNullable<ToolRunOptions["approve"]>>[0],
): Promise<ApprovalDecision> {
  let onAbort: () => void = () => undefined;
  const cancelled = new Promise<ApprovalDecision>((resolve) => {
    onAbort = () => resolve("cancelled");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([approve(request, signal), cancelled]).finally(() =>
    signal.removeEventListener("abort", onAbort),
  );
}

/**
 * Runs one authorized call (its process records written as they come) and writes its output; a
 * tool that throws gives an error output.
 */
async function executeCall(
  context: TurnContext,
  options: ToolRunOptions,
  { call, tool, input }: ReadyCall,
): Promise<void> {
  const { runId, sessionId, write, notice, signal } = context;
  notice({ type: "tool_started", runId, callId: call.callId });
  let output: string;
  let isError = false;
  try {
    output = await tool.execute(input, {
      cwd: options.cwd,
      fs: options.fs,
      signal,
      sessionId,
      privateRoots: options.privateRoots,
      onProcessStart: async (process) => {
        await write([
          {
            type: PROCESS_START_EVENT,
            runId,
            callId: call.callId,
            process,
            sourceEventSeqs: [call.seq],
          },
        ]);
      },
      onProcessesLeftRunning: async (processes) => {
        await write([
          {
            type: PROCESS_LEFT_RUNNING_EVENT,
            runId,
            callId: call.callId,
            // Command lines are tool output: known secrets never reach the log.
            processes: processes.map((entry) => ({
              ...entry,
              command: redactSecrets(entry.command, options.secrets),
            })),
            sourceEventSeqs: [call.seq],
          },
        ]);
      },
    });
  } catch (error) {
    output = (error as Error).message ?? String(error);
    isError = true;
  }
  await finishCall(context, options, call, output, isError, tool);
}
