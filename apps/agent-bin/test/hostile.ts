import { type ChildProcess, spawn } from "node:child_process";
import { type ScriptedResponse, startScriptedServer } from "@tapedeck/llm-replay";
import { BINARY, tempWorkspace } from "./binary";

/** What a CLI run printed. */
export interface CliResult {
  code: number | null;
  /** stdout, or under a terminal everything the terminal showed. */
  stdout: string;
  stderr: string;
}

/** Options of one CLI run against the hostile model. */
export interface HostileRunOptions {
  /** Run under a pseudo-terminal (`script`), answering each approval prompt with `answer`. */
  terminal?: { answer: string };
  /** Extra environment (e.g. secrets the test looks for). */
  env?: Record<string, string>;
  /** Working directory; default the workspace. */
  cwd?: string;
  /** Kill the run after this many ms (its result says so in `stderr`). */
  timeoutMs?: number;
  /** Called with all stderr so far on each chunk (e.g. to send SIGINT at the right moment). */
  onStderr?: (stderr: string, child: ChildProcess) => void;
}

/**
 * A temporary home and workspace and a scripted model server that emits the given responses:
 * the attacker of the security tests. `cli()` runs the real binary against it.
 */
export async function hostileModel(responses: readonly ScriptedResponse[]) {
  const workspace = await tempWorkspace();
  const server = await startScriptedServer(responses);
  const baseEnv = {
    PATH: process.env.PATH ?? "",
    HOME: workspace.root,
    TAPEDECK_HOME: workspace.home,
    TAPEDECK_MODEL: "openai-chat:scripted",
    OPENAI_API_KEY: "sk-hostile-test-key-0123456789",
    OPENAI_BASE_URL: server.url,
  };
  const cli = (args: string[], options: HostileRunOptions = {}) =>
    new Promise<CliResult>((resolve) => {
      const env = { ...baseEnv, ...options.env };
      const cwd = options.cwd ?? workspace.cwd;
      const quoted = [process.execPath, BINARY, ...args]
        .map((part) => `'${part.replaceAll("'", `'\\''`)}'`)
        .join(" ");
      const child =
        options.terminal === undefined
          ? spawn(process.execPath, [BINARY, ...args], {
              cwd,
              env,
              stdio: ["ignore", "pipe", "pipe"],
            })
          : spawn("script", ["-qfec", quoted, "/dev/null"], {
              cwd,
              env,
              stdio: ["pipe", "pipe", "pipe"],
            });
      let stdout = "";
      let stderr = "";
      let prompts = 0;
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (options.terminal !== undefined) {
          const seen = stdout.split("[N]o: ").length - 1;
          for (; prompts < seen; prompts += 1) child.stdin?.write(`${options.terminal.answer}\n`);
        }
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        options.onStderr?.(stderr, child);
      });
      const timer = setTimeout(() => {
        stderr += "\n[test: killed after timeout]";
        child.kill("SIGKILL");
      }, options.timeoutMs ?? 20_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  return {
    workspace,
    server,
    env: baseEnv,
    cli,
    async close() {
      await server.close();
      await workspace.cleanup();
    },
  };
}
