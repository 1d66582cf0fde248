/**
 * The flags of `tapedeck sessions …` and the scope they select: shared by the subcommands and by
 * the fresh-index search (`fresh-search.ts`), which reads them before anything else is loaded.
 */
import { parseArgs } from "node:util";
import type { QueryScope } from "@tapedeck/session-query";
import { defaultWorkspaceId } from "@tapedeck/session-store/folder";

/** Parsed `sessions` flags and positionals. @throws the `ERR_PARSE_ARGS_*` errors of `parseArgs`. */
export function parseSessionsArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      all: { type: "boolean" },
      json: { type: "boolean" },
      output: { type: "string", short: "o" },
      html: { type: "boolean" },
    },
  });
}

/** The caller's workspace (`cwd`), or every workspace with `--all`. */
export function sessionsScope(all: boolean | undefined, cwd: string): QueryScope {
  return all ? { all: true } : { workspaceIds: [defaultWorkspaceId(cwd)] };
}
