import { type ChildProcess, spawn } from "node:child_process";
import { withRunTmpdir } from "@tapedeck/test-temp";
import { type BinaryLaunch, tapedeckBinary } from "./binary";

/** What one `tapedeck …` process did. */
export interface CliResult {
  /** Exit code (`null` when killed by a signal). */
  code: number | null;
  /** stdout, or under a terminal everything the terminal showed. */
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions extends BinaryLaunch {
  /** Working directory of the process. */
  cwd: string;
  /** Its whole environment (see `binaryEnv`), plus the run's `TMPDIR` unless it names one. */
  env: Record<string, string>;
  /** Called with all stderr so far on each chunk (e.g. to send SIGINT at the right moment). */
  onStderr?: (stderr: string, child: ChildProcess) => void;
  /** Called with all stdout so far on each chunk (e.g. to act once a report is printed). */
  onStdout?: (stdout: string, child: ChildProcess) => void;
  /** Run under a pseudo-terminal (`script`), answering each approval prompt with `answer`. */
  terminal?: { answer: string };
  /** SIGKILL the process after this many ms (its result says so in `stderr`). */
  timeoutMs?: number;
}

/** Runs the built binary (`node tapedeck.mjs …args`) to its end and collects what it printed. */
export function runCli(args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  const binary = options.binary ?? tapedeckBinary();
  const node = options.node ?? process.execPath;
  const env = withRunTmpdir(options.env);
  const child =
    options.terminal === undefined
      ? spawn(node, [binary, ...args], {
          cwd: options.cwd,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        })
      : spawn("script", ["-qfec", shellQuote([node, binary, ...args]), "/dev/null"], {
          cwd: options.cwd,
          env,
          stdio: ["pipe", "pipe", "pipe"],
        });
  return new Promise<CliResult>((resolve) => {
    let stdout = "";
    let stderr = "";
    let prompts = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.terminal !== undefined) {
        const seen = stdout.split("[N]o: ").length - 1;
        for (; prompts < seen; prompts += 1) child.stdin?.write(`${options.terminal.answer}\n`);
      }
      options.onStdout?.(stdout, child);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr, child);
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            stderr += "\n[test: killed after timeout]";
            child.kill("SIGKILL");
          }, options.timeoutMs);
    child.on("exit", (code) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** One shell word per part, single-quoted. */
function shellQuote(parts: readonly string[]): string {
  return parts.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(" ");
}
