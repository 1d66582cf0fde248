/**
 * `tapedeck import <source> [PATH…] [--dry-run] [--json]`: other agents' sessions into this
 * home. Imported lazily by the CLI so other commands do not load the importers.
 */
import { parseArgs } from "node:util";
import { createHost } from "@tapedeck/host";
import {
  defaultLocations,
  type FileReport,
  type ImportProgress,
  type ImportSource,
  type ImportSummary,
  importSessions,
  importSources,
  type SkippedLine,
} from "@tapedeck/importers";
import { toVisibleText } from "@tapedeck/session/core";
import { CliUsageError, type Io } from "./io";

export const IMPORT_USAGE = `Usage: tapedeck import <source> [PATH…] [--dry-run] [--json]

Imports another agent's sessions so that search, trace, continue and fork work on them.
Importing again appends only what is new; a source that was rewritten becomes a fork.

Sources and their default folders:
  claude-code   $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects)
  codex         $CODEX_HOME/sessions (default ~/.codex/sessions), .jsonl and .jsonl.zst
  pi            $PI_CODING_AGENT_DIR/sessions (default ~/.pi/agent/sessions)
  opencode      $XDG_DATA_HOME/opencode (opencode.db or storage/), or \`opencode export\` files
  tapedeck      files written by \`tapedeck sessions export\` (PATH required)

  --dry-run     read and compare everything, write nothing
  --json        print the summary as JSON`;

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
    },
  });
  if (values.help) {
    io.stdout.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
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
