import { TapedeckError, type TapedeckErrorOptions, type ToolProcess } from "@tapedeck/session";
import type { z } from "zod";
import type { WorkspaceFs } from "../workspace-fs";

/** What a tool does to the world; `write` and `execute` tools go through the approval policy. */
export type ToolAccess = "read" | "write" | "execute";

/** How a client should show the tool (mirrors ACP's `ToolKind`). */
export type ToolKind = "read" | "edit" | "search" | "execute" | "other";

/** What a tool gets when it runs. */
export interface ToolContext {
  /** Workspace root; every path argument resolves inside it. */
  cwd: string;
  /** File access (local disk, or the ACP client's buffers). */
  fs: WorkspaceFs;
  /** Aborted when the run is cancelled: stop work, kill child processes. */
  signal: AbortSignal;
  /** Session the run belongs to. */
  sessionId: string;
  /**
   * Directories inside the workspace that tools never touch, reads included: the Tapedeck home
   * when it lies in the workspace (other workspaces' logs are there; `session_query` is the way to
   * history).
   */
  privateRoots?: readonly string[];
  /**
   * A tool that starts a process group calls this before the group runs any of the command, and
   * waits for it: the run records the group in the log (`x-process/start`), so a resume after a
   * crash can end it. When it rejects, the tool kills the group and fails the call.
   */
  onProcessStart?: (process: ToolProcess) => Promise<void>;
  /**
   * A tool that stops waiting for processes it started (they hold its output open after its
   * command ended) calls this with those still running, and waits for it before it returns: the
   * run records them (`x-process/left-running`). A rejection loses only that record.
   */
  onProcessesLeftRunning?: (processes: readonly LeftRunningProcess[]) => Promise<void>;
}

/** A process of a call still running when the call ended (left alone). */
export interface LeftRunningProcess {
  pid: number;
  /** Its process group id. */
  pgid: number;
  /** Start time in clock ticks since boot. */
  startTicks: number;
  /** Its command line, cut at 200 characters. */
  command: string;
}

/**
 * One tool the model may call. Arguments are validated with `argsSchema` before `execute`; a
 * failure there is reported to the model as an error output, never thrown at the run.
 */
export interface AgentTool<Args = unknown> {
  readonly name: string;
  readonly description: string;
  readonly access: ToolAccess;
  readonly kind: ToolKind;
  /** zod schema of the arguments; `parameters` is generated from it. */
  readonly argsSchema: z.ZodType<Args>;
  /** JSON Schema of the arguments when it is not generated from `argsSchema`. */
  readonly parameters?: Record<string, unknown>;
  /**
   * A human title for a call (`Read src/index.ts`), holding the whole command or path: never cut,
   * since a person approves from it. Callers show it through `toolTitle`, which makes hidden
   * characters visible.
   */
  title(args: Args): string;
  /** Workspace-relative paths the call touches, for "follow along" in editors. */
  locations(args: Args): string[];
  /**
   * The change a write makes, shown whole in its approval after the title (an edit's old and new
   * text, a write's content); hidden characters are made visible by the caller.
   */
  describeChange?(args: Args): string;
  /**
   * Runs the call. Returns the output text (the caller caps it). Throw to report an error output;
   * the error's message becomes the output.
   */
  execute(args: Args, context: ToolContext): Promise<string>;
}

/**
 * A tool of any argument type, as kept in a tool list (methods are bivariant in their arguments,
 * so every `AgentTool<T>` fits).
 */
export type AnyAgentTool = AgentTool<unknown>;

const toolErrorMarker = "tapedeck.error.ToolError";
const toolErrorSymbol = Symbol.for(toolErrorMarker);

/**
 * Thrown by a tool for an expected failure (code `TOOL_ERROR`); its message becomes the call's
 * error output, which the model reads.
 */
export class ToolError extends TapedeckError {
  readonly [toolErrorSymbol] = true;

  constructor(message: string, options: TapedeckErrorOptions = {}) {
    super("TOOL_ERROR", message, options);
    this.name = "ToolError";
  }

  static override isInstance(error: unknown): error is ToolError {
    return TapedeckError.hasMarker(error, toolErrorMarker);
  }
}

/** Default cap on one tool output, in characters. */
export const DEFAULT_OUTPUT_CAP = 32_000;

/**
 * Caps a tool output, keeping the head and the tail and saying what was cut, so the model knows
 * the output is partial.
 */
export function capOutput(output: string, cap: number = DEFAULT_OUTPUT_CAP): string {
  if (output.length <= cap) return output;
  const head = Math.floor(cap * 0.7);
  const tail = cap - head;
  const cut = output.length - head - tail;
  return `${output.slice(0, head)}\n[… output truncated: ${cut} of ${output.length} characters cut …]\n${output.slice(output.length - tail)}`;
}
