import { parseArgs } from "node:util";
import {
  coldAgeMs,
  compactHome,
  createHost,
  parseDuration,
  pruneHome,
  storageContributors,
  storageReport,
} from "@tapedeck/host";
import { CliUsageError, type Io } from "./io";

const USAGE = `Usage:
  tapedeck storage                              bytes by kind, and what compact would save
  tapedeck storage compact [--older-than DUR] [--dry-run]
                                                compress sessions idle for DUR (default
                                                TAPEDECK_COLD_DAYS, 7d) and reclaim blobs no
                                                session names
  tapedeck storage prune --older-than DUR [--dry-run]
                                                move sessions idle for DUR to the trash (a
                                                fork's parents stay while the fork does)
  tapedeck storage --empty-trash [--dry-run]    delete the trash for good (the only command
                                                that frees it)`;

/** `1.2 MB`-style size. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

/**
 * `tapedeck storage [compact] [--older-than DUR] [--dry-run] [--empty-trash]`: the home's bytes
 * by kind; compaction of cold sessions; emptying the trash. Returns the exit code.
 */
export async function storageCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      "older-than": { type: "string" },
      "dry-run": { type: "boolean" },
      "empty-trash": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [action, ...extra] = positionals;
  if (extra.length > 0 || (action !== undefined && action !== "compact" && action !== "prune")) {
    throw new CliUsageError(
      `unknown storage command ${JSON.stringify(positionals.join(" "))}.\n\n${USAGE}`,
    );
  }
  const olderThanMs =
    values["older-than"] !== undefined ? parseDuration(values["older-than"]) : coldAgeMs(io.env);
  const dryRun = values["dry-run"] === true;
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  try {
    const contributors = storageContributors(host.store);
    if (values["empty-trash"]) {
      if (!dryRun) host.assertWritable();
      const freed = host.store.emptyTrash({ dryRun });
      io.stdout.write(
        `${dryRun ? "Would free" : "Freed"} ${formatBytes(freed.bytes)} (${freed.files} files) from the trash.\n`,
      );
      return 0;
    }
    if (action === "prune") {
      if (values["older-than"] === undefined) {
        throw new CliUsageError("storage prune needs --older-than DUR (for example 90d).");
      }
      if (!dryRun) host.assertWritable();
      const report = await pruneHome(host.store, {
        olderThanMs: parseDuration(values["older-than"]),
        dryRun,
      });
      const count = `${report.moved.length} session${report.moved.length === 1 ? "" : "s"}`;
      io.stdout.write(
        `${dryRun ? "Would move" : "Moved"} ${count} (${formatBytes(report.bytes)}) to the trash; \`tapedeck storage --empty-trash\` frees the space for good.\n`,
      );
      if (report.keptForForks > 0) {
        io.stdout.write(
          `${report.keptForForks} older session(s) kept: forks that stay read them.\n`,
        );
      }
      if (report.busy > 0) {
        io.stdout.write(`${report.busy} session(s) in use by a writer were left as they are.\n`);
      }
      return 0;
    }
    if (action === "compact") {
      if (!dryRun) host.assertWritable();
      const report = await compactHome(host.store, contributors, { olderThanMs, dryRun });
      const verb = dryRun ? "Would compress" : "Compressed";
      io.stdout.write(
        `${verb} ${report.compressed} session${report.compressed === 1 ? "" : "s"} and reclaim${dryRun ? "" : "ed"} ${formatBytes(report.reclaimed)}: ${formatBytes(report.saved)} ${dryRun ? "would be " : ""}saved.\n`,
      );
      if (report.busy > 0) {
        io.stdout.write(`${report.busy} session(s) in use by a writer were left as they are.\n`);
      }
      return 0;
    }
    const report = await storageReport(host.store, contributors, { olderThanMs });
    const width = Math.max(...report.rows.map((row) => row.kind.length), 5);
    for (const row of report.rows) {
      io.stdout.write(
        `${row.kind.padEnd(width)}  ${formatBytes(row.bytes).padStart(9)}  ${row.files} files\n`,
      );
    }
    io.stdout.write(`${"total".padEnd(width)}  ${formatBytes(report.bytes).padStart(9)}\n`);
    io.stdout.write(
      `storage compact would save ${formatBytes(report.compactWouldSave)} (${report.coldSessions} cold session${report.coldSessions === 1 ? "" : "s"} to compress).\n`,
    );
    return 0;
  } finally {
    host.close();
  }
}
