/** One `tapedeck import <source> [PATH…]`: find, convert and write every file, with a report. */
import type { SessionStore } from "@tapedeck/session-store";
import { defaultLocations, findUnits, type ImportEnvironment } from "./locate";
import type { ImportSource, SkippedLine, SourceKey } from "./types";
import { type SessionOutcome, writeConverted } from "./write-session";

/** New logs flushed to disk together (their `fsync`s run at once on the thread pool). */
const SYNC_BATCH = 16;
/** Batches being flushed while the import goes on; one more waits for the oldest. */
const SYNCS_IN_FLIGHT = 2;

/** Progress after each file. */
export interface ImportProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** The file just finished. */
  path: string;
}

/** What happened to one source file. */
export interface FileReport {
  path: string;
  /** Source bytes read (sub-agent files of a Claude transcript included). */
  bytes: number;
  /** Entries read without error (including ones deliberately not imported). */
  entries: number;
  sessions: SessionOutcome[];
  /** Lines skipped, with why. */
  skipped: SkippedLine[];
  /** Set when the file could not be read at all (missing, unreadable, not decompressible). */
  error?: string;
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
  /** Longer lines are skipped (default 16 MiB). */
  maxLineBytes?: number;
  /** Called after each file. */
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Imports every session found under the paths. Damage inside a file is skipped and reported;
 * a file that cannot be read is reported with `error`; nothing here throws for source content.
 * Sessions that fork another source session are written after it (when it is in the same run).
 */
export async function importSessions(options: ImportOptions): Promise<ImportSummary> {
  const paths = [...(options.paths ?? defaultLocations(options.source, options.env))];
  const units = findUnits(options.source, paths, {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  });
  const bytesTotal = units.reduce((sum, unit) => sum + unit.bytes, 0);
  const files: FileReport[] = [];
  const counts = { created: 0, appended: 0, forked: 0, unchanged: 0 };
  let newEvents = 0;
  let bytesDone = 0;
  const deferred: { report: FileReport; sessions: Parameters<typeof writeConverted>[1][] }[] = [];
  const written = new Set<string>();
  const keyOf = (key: SourceKey) => `${key.tool}\u0000${key.sessionId}`;
  const syncer = new BackgroundSync(options.store);
  const write = async (report: FileReport, converted: Parameters<typeof writeConverted>[1]) => {
    const outcome = await writeConverted(options.store, converted, {
      dryRun: options.dryRun === true,
      deferSync: true,
    });
    if (outcome.action === "created" && outcome.forkedFrom === undefined && !options.dryRun) {
      await syncer.add(outcome.sessionId);
    }
    report.sessions.push(outcome);
    counts[outcome.action] += 1;
    newEvents += outcome.newEvents;
    written.add(keyOf(converted.key));
  };
  for (const unit of units) {
    const report: FileReport = {
      path: unit.path,
      bytes: unit.bytes,
      entries: 0,
      sessions: [],
      skipped: [],
    };
    files.push(report);
    try {
      const conversion = unit.convert();
      report.entries = conversion.entries;
      report.skipped = conversion.skipped;
      const later: (typeof deferred)[number]["sessions"] = [];
      for (const converted of conversion.sessions) {
        // A fork of a session not written yet waits for the end of the run.
        if (converted.forkOf !== undefined && !written.has(keyOf(converted.forkOf)))
          later.push(converted);
        else await write(report, converted);
      }
      if (later.length > 0) deferred.push({ report, sessions: later });
    } catch (error) {
      report.error = describe(error);
    }
    bytesDone += unit.bytes;
    options.onProgress?.({
      filesDone: files.length,
      filesTotal: units.length,
      bytesDone,
      bytesTotal,
      path: unit.path,
    });
    // Let the event loop run between files: the progress reaches a stream (the viewer's SSE),
    // and a server stays responsive during a long import.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Forks of sessions written above: their parents reach the disk first.
  await syncer.finish();
  for (const { report, sessions } of deferred) {
    for (const converted of sessions) {
      try {
        await write(report, converted);
      } catch (error) {
        report.error = describe(error);
      }
    }
  }
  await syncer.finish();
  return {
    source: options.source,
    paths,
    dryRun: options.dryRun === true,
    files,
    counts,
    newEvents,
    skipped: files.reduce((sum, file) => sum + file.skipped.length, 0),
    nothingRead: files.every((file) => file.entries === 0),
  };
}

function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  return typeof message === "string" ? message : String(error);
}

/**
 * Flushes new logs in the background while the import goes on: a batch's `fsync`s wait on the
 * disk while the next files are converted and written, instead of all at the end. A failed
 * flush (disk full, I/O error) is thrown by the next `add` or by `finish`.
 */
class BackgroundSync {
  private pending: string[] = [];
  private readonly inFlight: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;

  constructor(private readonly store: SessionStore) {}

  /** Queues a new log; starts flushing its batch when full. */
  async add(sessionId: string): Promise<void> {
    this.pending.push(sessionId);
    if (this.pending.length >= SYNC_BATCH) await this.start();
  }

  /** Flushes what is queued and waits for every flush; throws the first failure. */
  async finish(): Promise<void> {
    await this.start();
    await Promise.all(this.inFlight.splice(0));
    this.throwFailure();
  }

  private async start(): Promise<void> {
    this.throwFailure();
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (this.inFlight.length >= SYNCS_IN_FLIGHT) await this.inFlight.shift();
    this.inFlight.push(
      this.store.syncLogs(batch).catch((error: unknown) => {
        this.failure ??= { error };
      }),
    );
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}
