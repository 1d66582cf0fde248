/** One `tapedeck import <source> [PATH…]`: find, convert and write every file, with a report. */
import { availableParallelism } from "node:os";
import type { SessionStore } from "@tapedeck/session-store";
import { convertInto, describe, type FileReport, RunWriter, reportOf } from "./import-file";
import {
  defaultWorkerEntry,
  importOnWorkers,
  type PoolFile,
  type WorkerEntry,
} from "./import-pool";
import { defaultLocations, findUnits, type ImportEnvironment, type ImportUnit } from "./locate";
import type { ConvertedSession, ImportSource } from "./types";
import type { SessionOutcome } from "./write-session";

export type { FileReport } from "./import-file";

/**
 * Below this many bytes of source an import runs on the calling thread: a worker's start-up
 * (≈ 60–70 ms of CPU for the bundle) and its cold code cost more than it saves (measured at
 * 11 MB: +80–90 ms of CPU, slower; see the package README).
 */
export const WORKER_MIN_BYTES = 32 * 1024 * 1024;
/**
 * Below this many cores an import runs on the calling thread: on an idle 2-core machine a pool of
 * this thread + 1 worker imported 50–65 MB no faster than one thread (the bench, 1 Dec 2026: Codex
 * 0.25× against 0.24×, pi 0.21× against 0.21×) for ≈ 30 % more CPU, the calling thread still
 * converting ≈ 80 % of the files while the worker started cold.
 */
export const WORKER_MIN_CORES = 4;
/** Workers at most, whatever the cores (each holds one file's sessions in memory). */
const MAX_WORKERS = 3;

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
  /** Worker threads the files were imported on; 0: the calling thread alone. */
  workers: number;
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
  /** Longer lines are skipped (default 16 MiB). */
  maxLineBytes?: number;
  /** Called after each file. */
  onProgress?: (progress: ImportProgress) => void;
  /**
   * Worker threads to import on, besides this thread (which takes files too). Default:
   * `$TAPEDECK_IMPORT_WORKERS` of `env` when set, else one per core but one (at most 3) when the
   * sources total at least {@link WORKER_MIN_BYTES} on {@link WORKER_MIN_CORES} cores or more. 0: this thread only. The sessions written
   * and the summary are the same either way.
   */
  workers?: number;
  /**
   * With workers: whether this thread takes files too. Default true, or false when
   * `$TAPEDECK_IMPORT_THIS_THREAD` of `env` is `0` (tests and measurements of the workers alone).
   */
  thisThread?: boolean;
  /** The worker's entry; default the one next to this module (tests name another). */
  workerEntry?: WorkerEntry;
}

/**
 * Imports every session found under the paths. Damage inside a file is skipped and reported;
 * a file that cannot be read is reported with `error`; nothing here throws for source content.
 * Sessions that fork another source session are written after it (when it is in the same run).
 * Big imports run on worker threads ({@link ImportOptions.workers}) with the same result.
 */
export async function importSessions(options: ImportOptions): Promise<ImportSummary> {
  const paths = [...(options.paths ?? defaultLocations(options.source, options.env))];
  const units = findUnits(options.source, paths, {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  });
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
    const sessions = convertInto(unit, report);
    if (sessions !== undefined) {
      const later = await run.writeFile(report, sessions);
      if (later.length > 0) deferred.push({ report, sessions: later });
    }
    progress(report);
    // Let the event loop run between files: the progress reaches a stream (the viewer's SSE),
    // and a server stays responsive during a long import.
    await new Promise((resolve) => setImmediate(resolve));
  };

  const workers = workerCount(options, units, bytesTotal);
  const entry = workers > 0 ? (options.workerEntry ?? defaultWorkerEntry()) : undefined;
  let here = units.map((unit, index) => ({ unit, report: files[index]! }));
  let started = 0;
  if (entry !== undefined) {
    // Units without a spec (a path that could not be read) only report their error.
    const pooled: PoolFile[] = [];
    for (const file of here) {
      if (file.unit.spec === undefined) await importHere(file.unit, file.report);
      else pooled.push(file as PoolFile);
    }
    const result = await importOnWorkers({
      store: options.store,
      dryRun,
      files: pooled,
      workers,
      entry,
      written: run.written,
      onDone: (file) => progress(file.report),
      thisThread:
        options.thisThread ?? (options.env ?? process.env).TAPEDECK_IMPORT_THIS_THREAD !== "0",
    });
    deferred.push(...result.later);
    here = result.notStarted;
    started = result.started;
  }
  for (const { unit, report } of here) await importHere(unit, report);
  // Forks of sessions written above: their parents reach the disk first.
  await run.finish();
  for (const { report, sessions } of sortByFile(deferred, files)) {
    for (const converted of sessions) {
      try {
        await run.write(report, converted);
      } catch (error) {
        report.error = describe(error);
      }
    }
  }
  await run.finish();
  const counts = { created: 0, appended: 0, forked: 0, unchanged: 0 };
  let newEvents = 0;
  for (const outcome of files.flatMap((file) => file.sessions)) {
    counts[outcome.action] += 1;
    newEvents += outcome.newEvents;
  }
  return {
    source: options.source,
    paths,
    dryRun,
    files,
    counts,
    newEvents,
    skipped: files.reduce((sum, file) => sum + file.skipped.length, 0),
    nothingRead: files.every((file) => file.entries === 0),
    workers: started,
  };
}

/** Workers for this import (see {@link ImportOptions.workers}); 0: none. */
function workerCount(options: ImportOptions, units: readonly ImportUnit[], bytes: number): number {
  const files = units.filter((unit) => unit.spec !== undefined).length;
  const named =
    options.workers ?? workersFromEnv((options.env ?? process.env).TAPEDECK_IMPORT_WORKERS);
  // Each worker is a V8 heap of its own: never more than the cores, whatever was asked.
  if (named !== undefined) return Math.min(named, files, availableParallelism());
  return defaultWorkerCount(bytes, files);
}

/**
 * Workers an import of `files` files totalling `bytes` uses when none are named: none below
 * {@link WORKER_MIN_BYTES} or {@link WORKER_MIN_CORES}, else one per core but one (at most 3).
 */
export function defaultWorkerCount(bytes: number, files: number): number {
  if (bytes < WORKER_MIN_BYTES || availableParallelism() < WORKER_MIN_CORES) return 0;
  return Math.min(availableParallelism() - 1, MAX_WORKERS, files - 1);
}

function workersFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const count = Number(value);
  return Number.isInteger(count) && count >= 0 ? count : undefined;
}

/** Deferred forks in file order, whichever thread finished its file first. */
function sortByFile<T extends { report: FileReport }>(items: T[], files: FileReport[]): T[] {
  const order = new Map(files.map((file, index) => [file, index]));
  return [...items].sort((a, b) => order.get(a.report)! - order.get(b.report)!);
}
