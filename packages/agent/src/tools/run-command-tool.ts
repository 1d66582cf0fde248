import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { lazySchema } from "@tapedeck/session";
import { z } from "zod";
import { describeProcessGroup, signalGroup } from "../process-group";
import { toolEnvironment } from "../secrets";
import { type AgentTool, ToolError } from "./agent-tool";

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

/**
 * The command waits on fd 3 until the run has logged its process group, then becomes the command
 * (`exec` keeps the pid, so the logged leader and start time stay true). If the agent dies before
 * that, the read fails and nothing of the command runs.
 */
const GATED_BASH = 'IFS= read -r _ <&3 || exit 125; exec 3<&-; exec bash -c "$1"';

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
        let reason: "timeout" | "cancelled" | "unrecorded" | undefined;
        let recordError = "";
        const child = spawn("bash", ["-c", GATED_BASH, "bash", args.command], {
          cwd: context.cwd,
          detached: true,
          stdio: ["ignore", "pipe", "pipe", "pipe"],
          env: commandEnvironment(options.env),
        });
        const gate = child.stdio[3] as Writable;
        gate.on("error", () => undefined);
        const open = () => gate.end("go\n");
        if (child.pid !== undefined && context.onProcessStart !== undefined) {
          context.onProcessStart(describeProcessGroup(child.pid)).then(open, (error: unknown) => {
            reason ??= "unrecorded";
            recordError = (error as Error).message ?? String(error);
            killGroup(child.pid);
          });
        } else {
          open();
        }
        let head = "";
        let tail = "";
        let total = 0;
        const headCap = Math.floor(cap * 0.5);
        const collect = (chunk: Buffer) => {
          const text = chunk.toString("utf8");
          total += text.length;
          if (head.length < headCap) {
            const room = headCap - head.length;
            head += text.slice(0, room);
            tail = (tail + text.slice(room)).slice(-(cap - headCap));
          } else {
            tail = (tail + text).slice(-(cap - headCap));
          }
        };
        child.stdout?.on("data", collect);
        child.stderr?.on("data", collect);
        const timer = setTimeout(() => {
          reason = "timeout";
          killGroup(child.pid);
        }, args.timeoutSeconds * 1000);
        const onAbort = () => {
          reason ??= "cancelled";
          killGroup(child.pid);
        };
        context.signal.addEventListener("abort", onAbort, { once: true });
        child.on("error", (error) => {
          clearTimeout(timer);
          context.signal.removeEventListener("abort", onAbort);
          reject(new ToolError(`Could not start bash: ${error.message}`));
        });
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          context.signal.removeEventListener("abort", onAbort);
          const kept = head.length + tail.length;
          const output =
            total > kept
              ? `${head}\n[… output truncated: ${total - kept} of ${total} characters cut …]\n${tail}`
              : head + tail;
          if (reason === "unrecorded") {
            reject(
              new ToolError(`Command not run: its process could not be logged (${recordError}).`),
            );
          } else if (reason === "cancelled") {
            reject(new ToolError(`Command cancelled; it was killed.\n${output}`));
          } else if (reason === "timeout") {
            reject(
              new ToolError(
                `Command timed out after ${args.timeoutSeconds}s and was killed.\n${output}`,
              ),
            );
          } else if (code === 0) {
            resolve(`exit code 0\n${output}`);
          } else {
            reject(new ToolError(`exit code ${code ?? `signal ${signal}`}\n${output}`));
          }
        });
      });
    },
  };
}
