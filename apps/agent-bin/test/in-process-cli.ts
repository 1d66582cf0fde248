import type { CliResult } from "@tapedeck/test-harness";
import type { Io } from "../src/cli/io";
import { main } from "../src/cli/main";

/**
 * `tapedeck …args` run in this process through the CLI's `main` (no spawn, no build): a
 * non-interactive terminal with exactly `env`, in `cwd`. The end-to-end tests use the built binary
 * (`cliContext` of `@tapedeck/test-harness`); this is for the many quick `sessions …` checks.
 */
export function inProcessCli(options: { env: Record<string, string>; cwd: string }) {
  return async (args: string[]): Promise<CliResult & { code: number }> => {
    let stdout = "";
    let stderr = "";
    const io: Io = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: options.env,
      cwd: options.cwd,
      interactive: false,
      ask: async () => "",
      onInterrupt: () => undefined,
      exit: (code) => {
        throw new Error(`exit ${code}`);
      },
    };
    const code = await main(args, io);
    return { code, stdout, stderr };
  };
}
