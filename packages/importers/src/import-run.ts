/** One `tapedeck import <source> [PATH…]`: find, convert and write every file, with a report. */
import type { SessionStore } from "@tapedeck/session-store";
import { convertInto, describe, type FileReport, RunWriter, reportOf } from "./import-file";
import type { KeptConversion } from "./kept-conversion";
import { defaultLocations, findUnits, type ImportEnvironment, type ImportUnit } from "./locate";
import type { ConvertedSession, ImportSource } from "./types";
import type { SessionOutcome } from "./write-session";

export type { FileReport } from "./import-file";

/** Progress after each file. */
export interface ImportProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** The file just finished. */
  path: string;
}

/** The result of {@link importSessions}. */
export interface ImportSummary {
  source: ImportSource;
  /** The paths searched. */
  paths: string[];
  dryRun: boolean;
  files: FileReport[];
  /** Sessions per action. */
  counts: Record<SessionOutcome["action"], number>;
  /** Events written (or that would be, in a dry run). */
  newEvents: number;
  /** Lines skipped over all files. */
  skipped: number;
  /** True when no file yielded a single entry: the command fails. */
  nothingRead: boolean;
}

/** Options of {@link importSessions}. */
export interface ImportOptions {
  store: SessionStore;
  source: ImportSource;
  /** Files or folders; default {@link defaultLocations}. */
  paths?: readonly string[];
  /** For the default locations; default `process.env`. */
  env?: ImportEnvironment;
  /** Compute everything, write nothing. */
  dryRun?: boolean;
  /**
   * Imports only the units (files; an opencode database's sessions, `<db>#<session id>`) whose
   * path this accepts: continuous import reads only the sessions of a database that changed.
   */
  only?: (unitPath: string) => boolean;
  /** Longer lines are skipped (default 16 MiB). */
  maxLineBytes?: number;
  /** Called after each file. */
  onProgress?: (progress: ImportProgress) => void;
  /**
   * Filled with the conversion of each unit that can keep its converter's state (by unit path):
   * continuous import keeps it to convert only what the file grows by (`grown-import.ts`).
   */
  kept?: Map<string, KeptConversion>;
}

/**
 * Imports every session found under the paths. Damage inside a file is skipped and reported;
 * a file that cannot be read is reported with `error`; nothing here throws for source content.
 * Sessions that fork another source session are written after it (when it is in the same run).
 */
export async function importSessions(options: ImportOptions): Promise<ImportSummary> {
  const paths = [...(options.paths ?? defaultLocations(options.source, options.env))];
  const found = findUnits(options.source, paths, {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  });
  const only = options.only;
  const units = only === undefined ? found : found.filter((unit) => only(unit.path));
  const dryRun = options.dryRun === true;
  const bytesTotal = units.reduce((sum, unit) => sum + unit.bytes, 0);
  const files = units.map(reportOf);
  const run = new RunWriter(options.store, dryRun);
  const deferred: { report: FileReport; sessions: ConvertedSession[] }[] = [];
  let filesDone = 0;
  let bytesDone = 0;
  const progress = (report: FileReport) => {
    filesDone += 1;
    bytesDone += report.bytes;
    options.onProgress?.({
      filesDone,
      filesTotal: units.length,
      bytesDone,
      bytesTotal,
      path: report.path,
    });
  };
  const importHere = async (unit: ImportUnit, report: FileReport) => {
    const { kept } = options;
    const keeping = kept === undefined ? undefined : unit.convertKeeping;
    const sessions =
      keeping === undefined
        ? convertInto(unit, report)
        : convertInto(unit, report, () => {
            const conversion = keeping();
            kept?.set(unit.path, conversion);
            return conversion.conversion;
          });
    if (sessions !== undefined) {
      const later = await run.writeFile(report, sessions);
      if (later.length > 0) deferred.push({ report, sessions: later });
    }
    progress(report);
    // Let the event loop run between files: the progress reaches a stream (the viewer's SSE),
    // and a server stays responsive during a long import.
    await new Promise((resolve) => setImmediate(resolve));
  };

  for (const [index, unit] of units.entries()) await importHere(unit, files[index]!);
  // Forks of sessions written above: their parents reach the disk first.
  await run.finish();
  for (const { report, sessions } of deferred) {
    for (const converted of sessions) {
      try {
        await run.write(report, converted);
      } catch (error) {
        report.error = describe(error);
      }
    }
  }
  await run.finish();
  return summarize(options.source, paths, dryRun, files);
}

/** The summary of an import that wrote `files`. */
export function summarize(
  source: ImportSource,
  paths: string[],
  dryRun: boolean,
  files: FileReport[],
): ImportSummary {
  const counts = { created: 0, appended: 0, forked: 0, unchanged: 0 };
  let newEvents = 0;
  for (const outcome of files.flatMap((file) => file.sessions)) {
    counts[outcome.action] += 1;
    newEvents += outcome.newEvents;
  }
  return {
    source,
    paths,
    dryRun,
    files,
    counts,
    newEvents,
    skipped: files.reduce((sum, file) => sum + file.skipped.length, 0),
    nothingRead: files.every((file) => file.entries === 0),
  };
}
