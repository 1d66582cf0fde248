import { TapedeckError } from "@tapedeck/session/core";

/** What a command may touch: streams, environment, cwd, the terminal. Tests pass their own. */
export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
  /** stdin and stderr are terminals: approvals and progress bars may be shown. */
  interactive: boolean;
  ask(question: string): Promise<string>;
  onInterrupt(handler: () => void): void;
  exit(code: number): never;
}

/** Bad command-line usage (exit code 2). */
export class CliUsageError extends TapedeckError {
  constructor(message: string) {
    super("USAGE", message);
    this.name = "CliUsageError";
  }
}
