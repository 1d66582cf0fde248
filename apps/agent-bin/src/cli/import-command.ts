/**
 * `tapedeck import <source> [PATH…] [--dry-run] [--json]`: other agents' sessions into this
 * home. Imported lazily by the CLI so other commands do not load the importers.
 */
import { parseArgs } from "node:util";
import { createHost, importStateDir, setAutoImport } from "@tapedeck/host";
import {
  defaultLocations,
  type FileReport,
  type ImportProgress,
  type ImportSource,
  type ImportSummary,
  importChanged,
  importSessions,
  importSources,
  type SkippedLine,
} from "@tapedeck/importers";
import { toVisibleText } from "@tapedeck/session/core";
import { CliUsageError, type Io } from "./io";

export const IMPORT_USAGE = `Usage: tapedeck import <source> [PATH…] [--dry-run] [--json]
       tapedeck import --watch [--interval SECONDS]
       tapedeck import --auto on|off

Imports another agent's sessions so that search, trace, continue and fork work on them.
Importing again appends only what is new; a source that was rewritten becomes a fork.

Sources and their default folders:
  claude-code   $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects)
  codex         $CODEX_HOME/sessions (default ~/.codex/sessions), .jsonl and .jsonl.zst
  pi            $PI_CODING_AGENT_DIR/sessions (default ~/.pi/agent/sessions)
  opencode      $XDG_DATA_HOME/opencode (opencode.db or storage/), or \`opencode export\` files
  gemini        ~/.gemini/tmp (saved chats: <project hash>/chats/session-*.json;
                /chat save checkpoints: <project hash>/checkpoint-<tag>.json)
  tapedeck      files written by \`tapedeck sessions export\` (PATH required)

  --dry-run     read and compare everything, write nothing
  --json        print the summary as JSON
  --watch       keep importing new and grown sessions of every tool above but tapedeck from
                their default folders (only changed files are read) until interrupted
  --interval    seconds between looks with --watch (default 2)
  --auto on|off whether the viewer and \`tapedeck sessions …\` import them first (default off)`;

/** Skipped lines listed per file before "… and N more". */
const SKIPS_SHOWN = 5;

/** Runs the import; exit 0 (damage skipped is a warning), 1 when nothing could be read. */
export async function importCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      "dry-run": { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      watch: { type: "boolean" },
      interval: { type: "string" },
      auto: { type: "string" },
    },
  });
  if (values.help) {
    io.stdout.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
  if (values.auto !== undefined) return autoCommand(values.auto, positionals, io);
  if (values.watch === true) return watchCommand(values.interval, positionals, io);
  const [source, ...paths] = positionals;
  if (source === undefined || !(importSources as readonly string[]).includes(source)) {
    throw new CliUsageError(
      `${source === undefined ? "import needs a source" : `unknown import source ${JSON.stringify(source)}`}: one of ${importSources.join(", ")}.\n\n${IMPORT_USAGE}`,
    );
  }
  const tool = source as ImportSource;
  if (tool === "tapedeck" && paths.length === 0) {
    throw new CliUsageError("import tapedeck needs the export files (or folders) to read.");
  }
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  try {
    if (values["dry-run"] !== true) host.assertWritable();
    const progress = progressWriter(io);
    const summary = await importSessions({
      store: host.store,
      source: tool,
      ...(paths.length === 0 ? { env: io.env } : { paths }),
      dryRun: values["dry-run"] === true,
      onProgress: progress.update,
    });
    progress.done();
    if (values.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
    else io.stdout.write(report(summary));
    return finish(summary, io);
  } finally {
    host.engine.close();
  }
}

/** Warnings and the exit code. */
function finish(summary: ImportSummary, io: Io): number {
  if (summary.files.length === 0) {
    const where = summary.paths.length === 0 ? defaultLocations(summary.source) : summary.paths;
    io.stderr.write(`tapedeck: no ${summary.source} sessions found in ${where.join(", ")}\n`);
    return 1;
  }
  if (summary.nothingRead) {
    io.stderr.write(
      `tapedeck: nothing could be read: no file held a ${summary.source} session (see the reasons above)\n`,
    );
    return 1;
  }
  const unreadable = summary.files.filter((file) => file.error !== undefined).length;
  const damaged = summary.files.filter((file) => file.skipped.length > 0).length;
  const problems = [
    ...(summary.skipped > 0 ? [`${summary.skipped} line(s) skipped in ${damaged} file(s)`] : []),
    ...(unreadable > 0 ? [`${unreadable} file(s) or folder(s) not read`] : []),
  ];
  if (problems.length > 0) {
    io.stderr.write(
      `tapedeck: warning: ${problems.join(", ")} (listed above); everything else was imported\n`,
    );
  }
  return 0;
}

/** One block per file, then the totals. */
function report(summary: ImportSummary): string {
  const lines: string[] = [];
  for (const file of summary.files) lines.push(...fileLines(file));
  const { created, appended, forked, unchanged } = summary.counts;
  const verb = summary.dryRun ? "Would import" : "Imported";
  lines.push(
    `${verb} ${summary.source}: ${summary.files.length} file(s); sessions: ${created} created, ${appended} appended, ${forked} forked, ${unchanged} unchanged; ${summary.newEvents} new event(s); ${summary.skipped} line(s) skipped.`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Paths, source session ids and reasons come from the files read: each is shown with its hidden
 * characters escaped, line breaks too, so that an escape sequence cannot drive the terminal and a
 * name holding a newline cannot print a line of its own (a forged "Imported …" summary).
 */
function shown(text: string): string {
  return toVisibleText(text).text;
}

function fileLines(file: FileReport): string[] {
  if (file.error !== undefined) return [`${shown(file.path)}: not read: ${shown(file.error)}`];
  const sessions = file.sessions.map((session) => {
    const from =
      session.forkedFrom === undefined
        ? ""
        : ` (fork of ${session.forkedFrom.sessionId} at seq ${session.forkedFrom.seq})`;
    return `  ${session.action} ${session.sessionId}${from}: ${session.newEvents} new event(s) from ${shown(session.key.sessionId)}`;
  });
  const skipped = file.skipped
    .slice(0, SKIPS_SHOWN)
    .map((skip) => `  skipped${skipPlace(file, skip)}: ${shown(skip.reason)}`);
  if (file.skipped.length > SKIPS_SHOWN) {
    skipped.push(`  … and ${file.skipped.length - SKIPS_SHOWN} more skipped line(s)`);
  }
  const head = `${shown(file.path)}: ${file.sessions.length} session(s), ${file.entries} entr${file.entries === 1 ? "y" : "ies"} read, ${file.skipped.length} skipped`;
  return [head, ...sessions, ...skipped];
}

/**
 * Where a skip was: its line, and its own file when that is not the one reported (an opencode
 * storage session's message files). Line 0 is no line: the file as a whole (not the claimed
 * format) or a database row, which the reason names.
 */
function skipPlace(file: FileReport, skip: SkippedLine): string {
  const where = skip.path === file.path ? "" : ` ${shown(skip.path)}`;
  return skip.line === 0 ? where : `${where} line ${skip.line}`;
}

/**
 * A progress line on stderr: redrawn in place on a terminal; elsewhere one line every 2 s, so a
 * long import in a log shows it is moving and a short one prints nothing.
 */
function progressWriter(io: Io): { update(progress: ImportProgress): void; done(): void } {
  let last = Date.now();
  let drawn = false;
  const text = (progress: ImportProgress) =>
    `importing: ${progress.filesDone}/${progress.filesTotal} files, ${megabytes(progress.bytesDone)} of ${megabytes(progress.bytesTotal)} MB`;
  return {
    update(progress) {
      const now = Date.now();
      if (io.interactive) {
        if (now - last < 100 && progress.filesDone < progress.filesTotal) return;
        io.stderr.write(`\r${text(progress)}`);
        drawn = true;
      } else if (now - last >= 2000) {
        io.stderr.write(`${text(progress)}\n`);
      } else {
        return;
      }
      last = now;
    },
    done() {
      if (drawn) io.stderr.write("\n");
    },
  };
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** `tapedeck import --auto on|off`. */
function autoCommand(value: string, positionals: string[], io: Io): number {
  if ((value !== "on" && value !== "off") || positionals.length > 0) {
    throw new CliUsageError(`import --auto takes on or off, nothing else.\n\n${IMPORT_USAGE}`);
  }
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  try {
    host.assertWritable();
    setAutoImport(host.store.home, value === "on");
  } finally {
    host.engine.close();
  }
  io.stdout.write(
    value === "on"
      ? "Auto import on: the viewer and `tapedeck sessions` commands first import new and grown Claude Code, Codex, pi, opencode and Gemini CLI sessions.\n"
      : "Auto import off.\n",
  );
  return 0;
}

/** `tapedeck import --watch`: a look every interval until SIGINT or SIGTERM. */
async function watchCommand(
  interval: string | undefined,
  positionals: string[],
  io: Io,
): Promise<number> {
  const seconds = interval === undefined ? 2 : Number(interval);
  if (!Number.isFinite(seconds) || seconds <= 0 || positionals.length > 0) {
    throw new CliUsageError(
      `import --watch takes no source or path, and --interval a number of seconds.\n\n${IMPORT_USAGE}`,
    );
  }
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  let stopping = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopping = true;
    wake?.();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    host.assertWritable();
    io.stderr.write(
      `tapedeck: watching Claude Code, Codex, pi, opencode and Gemini CLI sessions every ${seconds} s (Ctrl-C stops)\n`,
    );
    while (!stopping) {
      const look = await importChanged({
        store: host.store,
        stateDir: importStateDir(host.store.home),
        env: io.env,
      });
      for (const summary of look.summaries) io.stdout.write(report(summary));
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    host.engine.close();
  }
}
