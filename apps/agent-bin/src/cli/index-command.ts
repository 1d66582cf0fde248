import { parseArgs } from "node:util";
import { createHost, type Host, indexPath, openIndex, type TeamIndex } from "@tapedeck/host";
import type { PushProgress } from "@tapedeck/session-query/postgres";
import type { SyncProgress } from "@tapedeck/session-query/sqlite";
import { CliUsageError, type Io } from "./io";

function bar(done: number, total: number, events: number): string {
  const width = 30;
  const ratio = total === 0 ? 1 : done / total;
  const filled = Math.round(ratio * width);
  return `\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total} sessions, ${events} events`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/**
 * `tapedeck index [--rebuild] [--stats]`: brings the search index up to date — the home's SQLite
 * index, or with `TAPEDECK_INDEX_URL` the team index, into which the home's new events are
 * pushed. `--stats` prints the team index's sessions, events and bytes per host. Returns the exit
 * code.
 */
export async function indexCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { rebuild: { type: "boolean" }, stats: { type: "boolean" } },
  });
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  try {
    if (host.teamIndex !== null) return await teamIndexCommand(host, host.teamIndex, values, io);
  } finally {
    host.close();
  }
  if (values.stats) {
    throw new CliUsageError(
      "index --stats reports on the team index: set TAPEDECK_INDEX_URL=postgres://… first.",
    );
  }
  host.assertWritable();
  const engine = openIndex(host.store, (text) => io.stderr.write(text));
  try {
    const onProgress = io.interactive
      ? (progress: SyncProgress) =>
          io.stderr.write(
            bar(progress.sessionsDone, progress.sessionsTotal, progress.eventsIndexed),
          )
      : undefined;
    // An explicit `index` checks every log, not only those the change journal names: logs that
    // another program changed in place without a journal record are read too (a `stat` per log).
    const options = onProgress === undefined ? { full: true } : { onProgress, full: true };
    const started = Date.now();
    const report = values.rebuild ? await engine.rebuild(options) : await engine.sync(options);
    if (io.interactive) io.stderr.write("\n");
    io.stdout.write(
      `${values.rebuild ? "Rebuilt" : "Updated"} ${indexPath(host.store.home)} in ${Date.now() - started} ms: ${report.sessionsAdded} added, ${report.sessionsUpdated} updated, ${report.sessionsRemoved} removed, ${report.eventsIndexed} events indexed.\n`,
    );
    for (const damaged of report.damaged) {
      // The message is the log error's own, which starts with its code ("SEQ_GAP at session …").
      io.stdout.write(
        `Damaged: session ${damaged.sessionId} is indexed only up to its first damage (${damaged.message}); \`tapedeck sessions verify ${damaged.sessionId}\` shows it.\n`,
      );
    }
    const { databaseBytes, walBytes } = engine.footprint();
    io.stdout.write(
      `Index size: ${megabytes(databaseBytes)} + write-ahead log ${megabytes(walBytes)}.\n`,
    );
    return 0;
  } finally {
    engine.close();
  }
}

/** `index` and `index --stats` against the team index. */
async function teamIndexCommand(
  host: Host,
  team: TeamIndex,
  values: { rebuild?: boolean; stats?: boolean },
  io: Io,
): Promise<number> {
  if (values.stats) {
    const rows = await team.stats();
    const table = [["host", "sessions", "events", "bytes"]];
    for (const row of rows) {
      table.push([row.host, String(row.sessions), String(row.events), String(row.bytes)]);
    }
    const total = rows.reduce(
      (sum, row) => ({
        sessions: sum.sessions + row.sessions,
        events: sum.events + row.events,
        bytes: sum.bytes + row.bytes,
      }),
      { sessions: 0, events: 0, bytes: 0 },
    );
    table.push(["total", String(total.sessions), String(total.events), String(total.bytes)]);
    const widths = table[0]!.map((_, column) =>
      Math.max(...table.map((line) => line[column]!.length)),
    );
    io.stdout.write(`Team index ${team.where}\n`);
    for (const line of table) {
      io.stdout.write(
        `${line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")}\n`,
      );
    }
    return 0;
  }
  const onProgress = io.interactive
    ? (progress: PushProgress) =>
        io.stderr.write(bar(progress.sessionsDone, progress.sessionsTotal, progress.eventsPushed))
    : undefined;
  const started = Date.now();
  const report = await team.push({
    ...(values.rebuild ? { full: true } : {}),
    ...(onProgress === undefined ? {} : { onProgress }),
  });
  if (io.interactive) io.stderr.write("\n");
  io.stdout.write(
    `Pushed ${host.store.home} to the team index ${team.where} in ${Date.now() - started} ms: ${report.sessionsAdded} added, ${report.sessionsUpdated} updated, ${report.sessionsRemoved} removed, ${report.eventsPushed} events (${report.bytesPushed} bytes).\n`,
  );
  for (const fork of report.diverged) {
    io.stderr.write(
      `Session ${fork.sessionId} was continued differently here and on ${fork.host} (the events differ from seq ${fork.seq} on): this machine's continuation is in the team index as ${fork.storedAs}, a fork of ${fork.sessionId} at seq ${fork.seq - 1}.\n`,
    );
  }
  if (report.conflicts.length > 0) {
    io.stderr.write(
      `${report.conflicts.length} session(s) not pushed: the team index holds a different log under the same id (${report.conflicts.slice(0, 3).join(", ")}${report.conflicts.length > 3 ? ", …" : ""}).\n`,
    );
  }
  return 0;
}
