import { AGENT_VERSION } from "../version";
import { freshSearchTried } from "./fresh-search-tried";
import type { Io } from "./io";
import { processStdout } from "./process-stdout";
// In the binary this is a loader of `fresh-search.cjs` in the entry chunk (see `tsup.config.ts`):
// no module to resolve and read between the entry and the search.
import { searchIfFresh } from "./sessions/fresh-search";

const USAGE = `tapedeck ${AGENT_VERSION} — a coding agent whose sessions are durable, resumable logs

Usage:
  tapedeck acp [--model M]         serve the Agent Client Protocol on stdio (for editors)
  tapedeck run [options] "prompt"  run one turn in this directory (tapedeck run --help)
  tapedeck sessions <command>      list, search, show, trace, export, verify, repair, rm
  tapedeck index [--rebuild]       update the search index (push to the team index)
  tapedeck index --stats           sessions, events and bytes per host in the team index
  tapedeck mcp [--all]             serve the session history to other agents over MCP (stdio)
  tapedeck import <source> [PATH…] import Claude Code, Codex, pi, opencode sessions (import --help)
  tapedeck checkpoints ID          the workspace's files recorded at each turn and tool (checkpoints --help)
  tapedeck rewind ID@SEQ           restore the files as they were at SEQ and fork there (rewind --help)
  tapedeck storage [compact]       bytes by kind; compress cold sessions (storage --help)
  tapedeck --version

Environment: TAPEDECK_HOME (default ~/.tapedeck), TAPEDECK_MODEL (default openai:gpt-4.1-mini),
OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server), TAPEDECK_INDEX_URL
(postgres://…: query and push to a team index instead of the home's own),
TAPEDECK_STREAM_IDLE_TIMEOUT_MS (default 120000: a model stream silent this long fails),
TAPEDECK_CHECKPOINTS=off (no checkpoints of the workspace's files),
TAPEDECK_COLD_DAYS (default 7, or off: storage compact compresses sessions idle this long).`;

/** The process's own Io (its stdout as {@link processStdout} writes it). */
export function processIo(): Io {
  const write = processStdout();
  return {
    stdout: { write },
    stderr: { write: (text: string) => process.stderr.write(text) },
    env: process.env,
    cwd: process.cwd(),
    get interactive() {
      return Boolean(process.stdin.isTTY && process.stderr.isTTY);
    },
    ask: async (question) => (await import("./run-command")).askOnTerminal(question),
    onInterrupt: (handler) => {
      process.on("SIGINT", handler);
    },
    exit: (code) => process.exit(code),
  };
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "acp":
        return await (await import("./acp-command")).acpCommand(rest, io);
      // Each command loads only its own code (a chunk of the bundle): `--version` and `sessions`
      // do not read or compile the agent loop, the model clients or the ACP SDK.
      case "run":
        return await (await import("./run-command")).runCommand(rest, io);
      case "sessions":
        // A search on a fresh index runs only its own bundle (`sessions/fresh-search.ts`).
        // The launcher (`tapedeck.cjs`) has tried already when it hands a search over.
        if (rest[0] === "search" && !freshSearchTried()) {
          const fresh = await searchIfFresh(rest.slice(1), io);
          if (fresh !== undefined) return fresh;
        }
        return await (await import("./sessions-command")).sessionsCommand(rest, io);
      case "index":
        return await (await import("./index-command")).indexCommand(rest, io);
      case "mcp":
        return await (await import("./mcp-command")).mcpCommand(rest, io);
      case "storage":
        return await (await import("./storage-command")).storageCommand(rest, io);
      case "import":
        return await (await import("./import-command")).importCommand(rest, io);
      case "checkpoints":
        return await (await import("./checkpoints-command")).checkpointsCommand(rest, io);
      case "rewind":
        return await (await import("./rewind-command")).rewindCommand(rest, io);
      case "--version":
      case "-v":
        io.stdout.write(`${AGENT_VERSION}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new (await import("./io")).CliUsageError(
          `unknown command ${JSON.stringify(command)}.\n\n${USAGE}`,
        );
    }
  } catch (error) {
    // Loaded only on failure: the entry chunk stays free of the shared runtime.
    return await (await import("./command-failure")).commandFailure(error, io);
  }
}
