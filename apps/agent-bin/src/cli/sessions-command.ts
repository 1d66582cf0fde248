import { createQueryHost, importStateDir, isAutoImportOn } from "@tapedeck/host/query";
import { CliUsageError, type Io } from "./io";
import { parseSessionsArgs, sessionsScope } from "./sessions/args";
import type { SessionsContext, SessionsHandler } from "./sessions/context";

export const SESSIONS_USAGE = `Usage: tapedeck sessions <command>

  list [--all] [--json]          sessions of this workspace (--all: every workspace)
  search TEXT [--all] [--json]   full-text search over messages, tool calls and outputs
  show ID                        the conversation, turn by turn
  trace ID SEQ [--json]          where an event went: replacements, citing events
  lineage ID [--json]            fork ancestors and descendants
  export ID [-o FILE] [--html]   the validated log as JSONL (forks self-contained); --html: one
                                 self-contained HTML page to read or share (no network)
  verify (ID | --all) [--json]   replay-validate logs; exit 1 on damage
  repair ID                      move a torn tail aside and close an interrupted turn
  rm ID                          move a log to the trash

ID may be a unique prefix of 6+ characters.`;

/**
 * One module per subcommand, loaded only when it runs (`export --html` brings React's server
 * renderer, `repair` the agent's repairs).
 */
const handlers: Record<string, () => Promise<SessionsHandler>> = {
  list: async () => (await import("./sessions/list")).list,
  search: async () => (await import("./sessions/search")).search,
  show: async () => (await import("./sessions/show")).show,
  trace: async () => (await import("./sessions/trace")).trace,
  lineage: async () => (await import("./sessions/lineage")).lineage,
  export: async () => (await import("./sessions/export")).exportCommand,
  verify: async () => (await import("./sessions/verify")).verify,
  repair: async () => (await import("./sessions/repair")).repair,
  rm: async () => (await import("./sessions/rm")).rm,
};

/** `tapedeck sessions …`. Returns the exit code. */
export async function sessionsCommand(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    io.stdout.write(`${SESSIONS_USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  const load = Object.hasOwn(handlers, command) ? handlers[command] : undefined;
  if (load === undefined) {
    throw new CliUsageError(
      `unknown sessions command ${JSON.stringify(command)}.\n\n${SESSIONS_USAGE}`,
    );
  }
  const { values, positionals } = parseSessionsArgs(rest);
  const context = sessionsContext(command, values, positionals, io);
  if (isAutoImportOn(context.store.home)) await autoImport(context);
  return (await load())(context);
}

/**
 * The home's auto import (`tapedeck import --auto on`): new and grown sessions of other agents
 * are imported before the command answers. Loaded only when on; a failure is a warning.
 */
async function autoImport(context: SessionsContext): Promise<void> {
  const { importChanged } = await import("@tapedeck/importers");
  try {
    await importChanged({
      store: context.store,
      stateDir: importStateDir(context.store.home),
      env: context.io.env,
    });
  } catch (error) {
    context.io.stderr.write(
      `tapedeck: warning: auto import failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}

/** The host and helpers every subcommand shares. */
function sessionsContext(
  command: string,
  values: SessionsContext["values"],
  positionals: string[],
  io: Io,
): SessionsContext {
  // The reading half of the host: no agent loop, tools or model clients to load.
  const host = createQueryHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  const { store } = host;
  const scope = sessionsScope(values.all, io.cwd);
  const needId = async (): Promise<string> => {
    const text = positionals[0];
    if (text === undefined)
      throw new CliUsageError(
        `sessions ${command} needs a session id${command === "verify" ? " (or --all)" : ""}.`,
      );
    return host.resolveSessionId(text);
  };
  // A session logged on another machine (team index) has no local header to read.
  const remote = (sessionId: string) => host.teamIndex !== null && store.entry(sessionId) === null;
  return {
    command,
    io,
    host,
    store,
    values,
    positionals,
    scope,
    fullScope: { all: true },
    needId,
    // The index cannot hold a log whose header is damaged; reading the header first reports that
    // damage instead of the index's "not found".
    async needIndexedId() {
      const sessionId = await needId();
      if (!remote(sessionId)) await store.readHeader(sessionId);
      return sessionId;
    },
    remote,
    print: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}
