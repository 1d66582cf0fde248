import path from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import {
  createHost,
  HandEditsError,
  parseForkSpec,
  type RunTarget,
  readMcpConfigFile,
  rewindSession,
} from "@tapedeck/host";
import { TapedeckError } from "@tapedeck/session";
import { CliUsageError, type Io } from "./io";
import { runPrinter, terminalApprover } from "./run-output";

export const RUN_USAGE = `Usage: tapedeck run [-c | -r ID | --fork ID[@SEQ] [--restore-files]] [--cwd DIR] [--goal TEXT] [--model M] [--approve | --deny] [--json] [--mcp-config FILE] "prompt"

  -c, --continue     continue the latest session of this workspace (git root)
  -r, --resume ID    continue session ID (a unique prefix of 6+ characters is enough)
  --fork ID[@SEQ]    branch session ID (at SEQ, default its end) into a new session
  --restore-files    with --fork: first put the workspace's files back to how they were at SEQ
                     (undo with \`tapedeck rewind --undo\`)
  --cwd DIR          work in DIR (default: a resumed or forked session's own directory, else here)
  --goal TEXT        set the session's standing goal (shown to the model every turn)
  --model M          model id, e.g. openai:gpt-4.1-mini or openai-chat:qwen2.5-coder (env TAPEDECK_MODEL)
  --approve          run writes and commands without asking
  --deny             read only: refuse writes and commands
  --json             print run events as JSON lines instead of text
  --mcp-config FILE  connect the MCP servers of FILE ({"mcpServers": {name: {command, args, env}}},
                     Claude Code's shape); their tools are offered as mcp__<server>__<tool>.
                     Without it a resumed session reconnects the servers it last used

Prompts "/compact" (summarize the conversation) and "/goal TEXT" (set the goal) are commands.`;

/** Exit code of a run the model refused (its words are printed like an answer). */
export const EXIT_REFUSED = 3;

const RUN_OPTIONS = {
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  fork: { type: "string" },
  "restore-files": { type: "boolean" },
  cwd: { type: "string" },
  goal: { type: "string" },
  model: { type: "string" },
  approve: { type: "boolean" },
  deny: { type: "boolean" },
  json: { type: "boolean" },
  "mcp-config": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type RunValues = ReturnType<typeof parseRunArgs>["values"];
type Host = ReturnType<typeof createHost>;
type PreparedRun = Awaited<ReturnType<Host["startRun"]>>;
type RunResult = Awaited<ReturnType<PreparedRun["run"]>>;

/**
 * `tapedeck run`: one turn in a terminal. Returns the exit code: 0 answered, 1 failed, 3 the model
 * refused ({@link EXIT_REFUSED}), 130 cancelled.
 */
export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseRunArgs(argv);
  if (values.help) {
    io.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  const input = positionals.join(" ").trim();
  checkRunArgs(input, values);
  const host = createHost({
    env: io.env,
    ...(values.model === undefined ? {} : { model: values.model }),
    warn: (text) => io.stderr.write(text),
  });
  // Read before anything is written: a bad file leaves no session behind.
  const mcpServers =
    values["mcp-config"] === undefined
      ? undefined
      : readMcpConfigFile(path.resolve(io.cwd, values["mcp-config"]));
  const target = await runTargetOf(host, values);
  if (values["restore-files"]) await restoreForkFiles(host, target, io);
  const { controller, onSigint } = cancelOnInterrupt(io);
  const prepared = await host
    .startRun({
      ...target,
      input,
      policy: { approval: values.approve ? "auto" : values.deny ? "deny" : "ask" },
      callerCwd: io.cwd,
      ...(values.cwd === undefined ? {} : { cwd: path.resolve(io.cwd, values.cwd) }),
      ...(values.goal === undefined ? {} : { goal: values.goal }),
      ...(mcpServers === undefined ? {} : { mcpServers }),
    })
    .catch((error: unknown) => {
      throw slashCommandUsage(error, input);
    });
  const json = values.json === true;
  if (prepared.placeNotice !== undefined) io.stderr.write(`tapedeck: ${prepared.placeNotice}\n`);
  const printer = runPrinter(io, json);
  let result: RunResult;
  try {
    result = await prepared.run({
      onEvent: printer.onEvent,
      approve: terminalApprover(io, onSigint),
      signal: controller.signal,
    });
  } finally {
    // A run that throws (the disk filled up) still ends the partial answer's line first.
    printer.finish();
  }
  if (!json) printRunSummary(io, prepared, result);
  if (result.status === "cancelled") return 130;
  if (result.stopReason === "refusal") return EXIT_REFUSED;
  return result.status === "failed" ? 1 : 0;
}

/** `tapedeck run`'s arguments, strictly: an unknown option is a usage error. */
function parseRunArgs(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: RUN_OPTIONS });
}

/** Refuses a missing prompt and options that exclude each other, before anything is opened. */
function checkRunArgs(input: string, values: RunValues): void {
  if (input === "") throw new CliUsageError(`a prompt is required.\n\n${RUN_USAGE}`);
  const chosen = [values.continue, values.resume !== undefined, values.fork !== undefined];
  if (chosen.filter(Boolean).length > 1) {
    throw new CliUsageError("use only one of -c, -r and --fork.");
  }
  if (values.approve && values.deny) {
    throw new CliUsageError("use only one of --approve and --deny.");
  }
}

/** Which session the run continues or forks (`-c`, `-r ID`, `--fork ID[@SEQ]`); none = a new one. */
async function runTargetOf(host: Host, values: RunValues): Promise<RunTarget> {
  const target: RunTarget = {};
  if (values.continue) target.continueLatest = true;
  if (values.resume !== undefined) target.sessionId = await host.resolveSessionId(values.resume);
  if (values.fork !== undefined) {
    const spec = parseForkSpec(values.fork);
    target.forkFrom = {
      sessionId: await host.resolveSessionId(spec.id),
      ...(spec.seq === undefined ? {} : { seq: spec.seq }),
    };
  }
  return target;
}

/** `--restore-files`: puts the workspace's files back to the fork point, asking before overwriting. */
async function restoreForkFiles(host: Host, target: RunTarget, io: Io): Promise<void> {
  if (target.forkFrom === undefined)
    throw new CliUsageError("--restore-files needs --fork ID@SEQ.");
  const { sessionId, seq } = target.forkFrom;
  const report = await rewindSession(host.store, {
    sessionId,
    ...(seq === undefined ? {} : { seq }),
    filesOnly: true,
    ...(io.interactive
      ? {
          confirm: async (paths: readonly string[]) =>
            /^y(es)?$/i.test(
              (
                await io.ask(
                  `Overwrite files changed by hand since the agent last touched them (${paths.join(", ")})? [y/N] `,
                )
              ).trim(),
            ),
        }
      : {}),
  }).catch((error: unknown) => {
    // `run` has no --force: say how to overwrite them with the command that has one.
    if (io.interactive || !HandEditsError.isInstance(error)) throw error;
    const point = `${sessionId}${seq === undefined ? "" : `@${seq}`}`;
    throw new HandEditsError(
      error.paths,
      `Nothing was changed and no run started. To overwrite them: tapedeck rewind ${point} --files-only --force (undone by tapedeck rewind --undo), then --fork ${point} without --restore-files.`,
    );
  });
  io.stderr.write(
    `Restored ${report.changes.length} file${report.changes.length === 1 ? "" : "s"} of ${report.root} to event ${report.checkpointSeq} (undo: tapedeck rewind --undo).\n`,
  );
}

/** The first Ctrl-C cancels the run (its signal aborts); the second exits at once with 130. */
function cancelOnInterrupt(io: Io): { controller: AbortController; onSigint: () => void } {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts === 1) {
      io.stderr.write("\nCancelling… (press Ctrl-C again to quit at once)\n");
      controller.abort();
    } else {
      io.exit(130);
    }
  };
  io.onInterrupt(onSigint);
  return { controller, onSigint };
}

/** A slash command given without a session becomes a usage error saying how to use it. */
function slashCommandUsage(error: unknown, input: string): unknown {
  if (TapedeckError.isInstance(error) && error.code === "SLASH_COMMAND_NEEDS_SESSION") {
    const what = input.startsWith("/compact")
      ? "/compact summarizes an earlier session"
      : "/goal sets the goal of an earlier session";
    return new CliUsageError(`${what}: use it with -c, -r ID or --fork ID.`);
  }
  return error;
}

/** The text mode's closing lines on stderr: a `/goal`'s effect, then the session and status. */
function printRunSummary(io: Io, prepared: PreparedRun, result: RunResult): void {
  if (prepared.command?.name === "goal") {
    io.stderr.write(
      prepared.command.goal === null ? "Goal cleared.\n" : `Goal set: ${prepared.command.goal}\n`,
    );
  }
  const refused = result.stopReason === "refusal" ? " (the model refused)" : "";
  io.stderr.write(`session ${result.sessionId} · ${result.status}${refused}\n`);
}

/** Reads one line from the terminal. */
export async function askOnTerminal(question: string): Promise<string> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await readline.question(question);
  } finally {
    readline.close();
  }
}
