/** How the CLI reports a command that failed (shared by `main` and the ACP bundle). */
import { getSystemErrorMap } from "node:util";
import { TapedeckError } from "@tapedeck/session/core";
import { CliUsageError, type Io } from "./io";

const SYSCALL_VERBS: Record<string, string> = {
  open: "open",
  mkdir: "create the directory",
  rename: "move",
  scandir: "list",
  unlink: "remove",
  stat: "read",
  read: "read",
  write: "write",
};

/** libuv's description of an error code (`ENOENT` → `no such file or directory`), else the code. */
function systemErrorDescription(code: string): string {
  for (const [name, description] of getSystemErrorMap().values()) {
    if (name === code) return description;
  }
  return code;
}

/**
 * A file-system error (ENOENT, EACCES, ENOTDIR, EISDIR, EEXIST, ENOSPC…) as one sentence naming
 * the path, e.g. `cannot open /x/out.jsonl: no such file or directory.`; `undefined` for others.
 */
export function systemErrorMessage(error: unknown): string | undefined {
  const { code, syscall, path } = error as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code) || typeof syscall !== "string") {
    return undefined;
  }
  const description = systemErrorDescription(code);
  const target = typeof path === "string" ? ` ${path}` : "";
  return `cannot ${SYSCALL_VERBS[syscall] ?? syscall}${target}: ${description}.`;
}

/**
 * What a command's failure prints and exits with: a usage error (2), a Tapedeck error or a
 * file-system error as one sentence (1). Anything else is a bug and is thrown again, for the
 * caller to print with its stack.
 *
 * @param error - what the command threw
 * @param io - where the sentence goes (its `stderr`)
 * @returns the exit code
 * @throws the error itself when it is none of those
 */
export function commandFailure(error: unknown, io: Pick<Io, "stderr">): number {
  const code = (error as { code?: string }).code;
  if (
    error instanceof CliUsageError ||
    code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ||
    code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" ||
    code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL"
  ) {
    io.stderr.write(`tapedeck: ${(error as Error).message}\n`);
    return 2;
  }
  if (TapedeckError.isInstance(error)) {
    io.stderr.write(`tapedeck: ${(error as Error).message}\n`);
    return 1;
  }
  const system = systemErrorMessage(error);
  if (system !== undefined) {
    io.stderr.write(`tapedeck: ${system}\n`);
    return 1;
  }
  throw error;
}
