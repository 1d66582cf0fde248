import { spawn } from "node:child_process";
import { z } from "zod";
import { toolEnvironment } from "../secrets";
import { type AgentTool, ToolError } from "./agent-tool";

const runCommandArgs = z.object({
  command: z.string().min(1).describe("A bash command line, run in the workspace root."),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(600)
    .default(120)
    .describe("Kill the command after this many seconds."),
});

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
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * `run_command`: `bash -c` in the workspace root, in its own process group so that a timeout or a
 * cancelled run kills the whole tree. Combined output is capped; the exit code is reported.
 */
export function createRunCommandTool(
  options: RunCommandOptions = {},
): AgentTool<z.infer<typeof runCommandArgs>> {
  const cap = options.outputCap ?? 30_000;
  return {
    name: "run_command",
    description:
      "Run a bash command in the workspace root and return its exit code and combined output. Non-interactive; use timeoutSeconds for long commands.",
    access: "execute",
    kind: "execute",
    argsSchema: runCommandArgs,
    // Whole, never cut: a person approves this (hidden characters are made visible by the caller).
    title: (args) => `Run ${args.command}`,
    locations: () => [],
    execute(args, context) {
      return new Promise<string>((resolve, reject) => {
        if (context.signal.aborted) {
          reject(new ToolError("Command cancelled before it started."));
          return;
        }
        const child = spawn("bash", ["-c", args.command], {
          cwd: context.cwd,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
          env: commandEnvironment(options.env),
        });
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
        child.stdout.on("data", collect);
        child.stderr.on("data", collect);
        let reason: "timeout" | "cancelled" | undefined;
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
          if (reason === "cancelled") {
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
