import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { lazySchema, type ToolProcess } from "@tapedeck/session";
import { z } from "zod";
import {
  CALL_MARKER_VARIABLE,
  type CallMarker,
  describeProcessGroup,
  markedProcesses,
  newCallMarker,
  signalGroup,
} from "../process-group";
import { toolEnvironment } from "../secrets";
import { type AgentTool, type LeftRunningProcess, ToolError } from "./agent-tool";

const runCommandArgs = lazySchema(() =>
  z.object({
    command: z.string().min(1).describe("A bash command line, run in the workspace root."),
    timeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(600)
      .default(120)
      .describe("Kill the command after this many seconds."),
  }),
);

/** Options of {@link createRunCommandTool}. */
export interface RunCommandOptions {
  /** Characters of combined stdout/stderr kept (head and tail); default 30,000. */
  outputCap?: number;
  /**
   * Extra environment variables for commands. The agent's environment is passed on without its
   * credentials and other secret-looking variables (`toolEnvironment`, see
   * `architecture/security.md`), so a command the model runs cannot read them.
   */
  env?: Record<string, string>;
}

/** The environment of a command: the agent's, scrubbed of secrets, plus `extra`. */
function commandEnvironment(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return toolEnvironment(process.env, extra);
}

function killGroup(pid: number | undefined): void {
  if (pid !== undefined) signalGroup(pid, "SIGKILL");
}

/** How long the pipes may stay open after the command exited before the call stops reading them. */
const PIPE_GRACE_MS = 1_000;
/** After a kill, the call ends within this even if the command's exit is never seen. */
const KILL_GRACE_MS = 3_000;
/** Processes named in the note about what is still running. */
const LISTED_PROCESSES = 10;

/**
 * The call's processes still running when it stopped waiting for its pipes (a background child
 * holding them, or one that left the group with `setsid`), and the sentence that names them ("").
 */
function leftRunning(
  record: ToolProcess,
  marker: CallMarker,
): { processes: LeftRunningProcess[]; note: string } {
  if (record.startTicks === undefined) return { processes: [], note: "" };
  const running = markedProcesses(marker.digest, record.startTicks);
  if (running.length === 0) return { processes: [], note: "" };
  const listed = running
    .slice(0, LISTED_PROCESSES)
    .map((entry) => `pid ${entry.pid} (${entry.command})`)
    .join(", ");
  const more =
    running.length > LISTED_PROCESSES ? `, and ${running.length - LISTED_PROCESSES} more` : "";
  return {
    processes: running.map(({ pid, pgrp, startTicks, command }) => ({
      pid,
      pgid: pgrp,
      startTicks,
      command,
    })),
    note: ` Still running and left alone (its output is no longer read): ${listed}${more}.`,
  };
}

/** Combined output kept within a cap: the head and the tail, with a line saying what was cut. */
function outputBuffer(cap: number): { collect: (chunk: Buffer) => void; text: () => string } {
  let head = "";
  let tail = "";
  let total = 0;
  const headCap = Math.floor(cap * 0.5);
  return {
    collect(chunk) {
      const text = chunk.toString("utf8");
      total += text.length;
      if (head.length < headCap) {
        const room = headCap - head.length;
        head += text.slice(0, room);
        tail = (tail + text.slice(room)).slice(-(cap - headCap));
      } else {
        tail = (tail + text).slice(-(cap - headCap));
      }
    },
    text() {
      const kept = head.length + tail.length;
      return total > kept
        ? `${head}\n[… output truncated: ${total - kept} of ${total} characters cut …]\n${tail}`
        : head + tail;
    },
  };
}

/**
 * The command waits on fd 3 until the run has logged its process group, then becomes the command
 * (`exec` keeps the pid, so the logged leader and start time stay true). If the agent dies before
 * that, the read fails and nothing of the command runs.
 */
const GATED_BASH = 'IFS= read -r _ <&3 || exit 125; exec 3<&-; exec bash -c "$1"';

/** What ended a call other than its command exiting on its own. */
type EndReason = "timeout" | "cancelled" | "unrecorded";

/** The call's result (or error) once its command exited or was given up on. */
function settleOutput(
  outcome: { reason: EndReason | undefined; recordError: string; timeoutSeconds: number },
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  note: string,
  output: string,
): { ok: true; text: string } | { ok: false; text: string } {
  switch (outcome.reason) {
    case "unrecorded":
      return {
        ok: false,
        text: `Command not run: its process could not be logged (${outcome.recordError}).`,
      };
    case "cancelled":
      return { ok: false, text: `Command cancelled; it was killed.${note}\n${output}` };
    case "timeout":
      return {
        ok: false,
        text: `Command timed out after ${outcome.timeoutSeconds}s and was killed.${note}\n${output}`,
      };
    default: {
      const code = exit?.code ?? null;
      const status = `exit code ${code ?? `signal ${exit?.signal ?? "unknown"}`}`;
      return { ok: code === 0, text: `${status}${note}\n${output}` };
    }
  }
}

/**
 * `run_command`: `bash -c` in the workspace root, in its own process group so that a timeout or a
 * cancelled run kills the whole tree. The group is handed to `context.onProcessStart` (logged)
 * before the command runs, so a resume after a crash can end it. Combined output is capped; the
 * exit code is reported.
 */
export function createRunCommandTool(
  options: RunCommandOptions = {},
): AgentTool<z.infer<ReturnType<typeof runCommandArgs>>> {
  const cap = options.outputCap ?? 30_000;
  return {
    name: "run_command",
    description:
      "Run a bash command in the workspace root and return its exit code and combined output. Non-interactive; use timeoutSeconds for long commands.",
    access: "execute",
    kind: "execute",
    // Built on first use: importing the tools (as every command does) builds no schema.
    get argsSchema() {
      return runCommandArgs();
    },
    // Whole, never cut: a person approves this (hidden characters are made visible by the caller).
    title: (args) => `Run ${args.command}`,
    locations: () => [],
    execute(args, context) {
      return new Promise<string>((resolve, reject) => {
        if (context.signal.aborted) {
          reject(new ToolError("Command cancelled before it started."));
          return;
        }
        const outcome = {
          reason: undefined as EndReason | undefined,
          recordError: "",
          timeoutSeconds: args.timeoutSeconds,
        };
        const marker = newCallMarker();
        const child = spawn("bash", ["-c", GATED_BASH, "bash", args.command], {
          cwd: context.cwd,
          detached: true,
          stdio: ["ignore", "pipe", "pipe", "pipe"],
          env: { ...commandEnvironment(options.env), [CALL_MARKER_VARIABLE]: marker.value },
        });
        const gate = child.stdio[3] as Writable;
        gate.on("error", () => undefined);
        const open = () => gate.end("go\n");
        const record =
          child.pid === undefined ? undefined : describeProcessGroup(child.pid, marker);
        if (record !== undefined && context.onProcessStart !== undefined) {
          context.onProcessStart(record).then(open, (error: unknown) => {
            outcome.reason ??= "unrecorded";
            outcome.recordError = (error as Error).message ?? String(error);
            kill();
          });
        } else {
          open();
        }
        const buffer = outputBuffer(cap);
        child.stdout?.on("data", buffer.collect);
        child.stderr?.on("data", buffer.collect);
        let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
        let grace: NodeJS.Timeout | undefined;
        let settled = false;
        // The call ends when the pipes close, or a grace after the command exited (or was killed):
        // a process that escaped the group (`setsid … &`) may hold the pipes open for ever.
        const finish = (pipesClosed: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(grace);
          context.signal.removeEventListener("abort", onAbort);
          let left: ReturnType<typeof leftRunning> = { processes: [], note: "" };
          if (!pipesClosed) {
            child.stdout?.destroy();
            child.stderr?.destroy();
            if (record !== undefined) left = leftRunning(record, marker);
          }
          const result = settleOutput(outcome, exit, left.note, buffer.text());
          const settle = () => {
            if (result.ok) resolve(result.text);
            else reject(new ToolError(result.text));
          };
          // Logged before the output (`x-process/left-running`); a failed write loses only that.
          if (left.processes.length > 0 && context.onProcessesLeftRunning !== undefined) {
            context.onProcessesLeftRunning(left.processes).then(settle, settle);
          } else {
            settle();
          }
        };
        const armGrace = (ms: number) => {
          grace ??= setTimeout(() => finish(false), ms);
        };
        function kill() {
          killGroup(child.pid);
          armGrace(KILL_GRACE_MS);
        }
        const timer = setTimeout(() => {
          outcome.reason ??= "timeout";
          kill();
        }, args.timeoutSeconds * 1000);
        const onAbort = () => {
          outcome.reason ??= "cancelled";
          kill();
        };
        context.signal.addEventListener("abort", onAbort, { once: true });
        child.on("error", (error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(grace);
          context.signal.removeEventListener("abort", onAbort);
          reject(new ToolError(`Could not start bash: ${error.message}`));
        });
        child.on("exit", (code, signal) => {
          exit = { code, signal };
          clearTimeout(grace);
          grace = setTimeout(() => finish(false), PIPE_GRACE_MS);
        });
        child.on("close", (code, signal) => {
          exit ??= { code, signal };
          finish(true);
        });
      });
    },
  };
}
