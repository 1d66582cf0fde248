/**
 * One file of an import: convert it, then write its sessions in order.
 */
import { resolve } from "node:path";
import { defaultWorkspaceId, type SessionStore } from "@tapedeck/session-store";
import { BackgroundSync } from "./background-sync";
import { withSafeCwd } from "./header-rules";
import type { ImportUnit } from "./locate";
import type { Conversion, ConvertedSession, SkippedLine, SourceKey } from "./types";
import { type SessionOutcome, writeConverted } from "./write-session";

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

/** A source session as a string, for sets of them. */
export const keyOf = (key: SourceKey): string => `${key.tool}\u0000${key.sessionId}`;

/** An empty report for `unit`. */
export function reportOf(unit: Pick<ImportUnit, "path" | "bytes">): FileReport {
  return { path: unit.path, bytes: unit.bytes, entries: 0, sessions: [], skipped: [] };
}

/**
 * Converts `unit` into `report` (entries, skipped lines). Returns its sessions, or `undefined`
 * with `report.error` set when the file could not be read.
 */
export function convertInto(
  unit: ImportUnit,
  report: FileReport,
  convert: () => Conversion = () => unit.convert(),
): ConvertedSession[] | undefined {
  try {
    const conversion = convert();
    report.entries = conversion.entries;
    const safe = withSafeCwd(conversion.sessions.filter(hasTurn));
    report.skipped = [...conversion.skipped, ...safe.skipped];
    return safe.sessions;
  } catch (error) {
    report.error = describe(error);
    return undefined;
  }
}

/**
 * True when the session holds a turn. One without (a Claude Code file of `summary` lines, which
 * title other sessions; a Codex rollout of a session quit before its first prompt) is not
 * written: it would be a session with no conversation, dated by nothing. Its entries are counted.
 */
function hasTurn(session: ConvertedSession): boolean {
  return session.events.some((event) => event.type === "turn/start");
}

/** The source keys a file's sessions touch: their own and the ones they fork. */
export function keysOf(sessions: readonly ConvertedSession[]): string[] {
  const keys = new Set<string>();
  for (const session of sessions) {
    keys.add(keyOf(session.key));
    if (session.forkOf !== undefined) keys.add(keyOf(session.forkOf));
  }
  return [...keys];
}

/**
 * Writes the sessions of one import run into one store: new logs are flushed in
 * the background, and it knows which source sessions this run has written, so a fork of one not
 * written yet waits for the end of the run.
 */
export class RunWriter {
  /** Source keys written by this run (see {@link keyOf}). */
  readonly written = new Set<string>();
  private readonly syncer: BackgroundSync;
  /** Workspace ids by cwd, found once per run (the store's rule, `defaultWorkspaceId`). */
  private readonly workspaceIds = new Map<string, string>();
  private readonly workspaceIdOf = (cwd: string): string => {
    let workspaceId = this.workspaceIds.get(cwd);
    if (workspaceId === undefined) {
      workspaceId = defaultWorkspaceId(resolve(cwd));
      this.workspaceIds.set(cwd, workspaceId);
    }
    return workspaceId;
  };

  constructor(
    readonly store: SessionStore,
    readonly dryRun: boolean,
  ) {
    this.syncer = new BackgroundSync(store);
  }

  /**
   * Writes `sessions` in order into `report`, except forks of a source session this run has not
   * written, which are returned (written at the end of the run, after their parents). A failure
   * sets `report.error` and stops this file.
   */
  async writeFile(
    report: FileReport,
    sessions: readonly ConvertedSession[],
  ): Promise<ConvertedSession[]> {
    const later: ConvertedSession[] = [];
    try {
      for (const converted of sessions) {
        if (converted.forkOf !== undefined && !this.written.has(keyOf(converted.forkOf)))
          later.push(converted);
        else await this.write(report, converted);
      }
    } catch (error) {
      report.error = describe(error);
    }
    return later;
  }

  /** Writes one session into `report`; throws what the store throws. */
  async write(report: FileReport, converted: ConvertedSession): Promise<void> {
    const outcome = await writeConverted(this.store, converted, {
      dryRun: this.dryRun,
      deferSync: true,
      workspaceIdOf: this.workspaceIdOf,
    });
    if (outcome.action === "created" && outcome.forkedFrom === undefined && !this.dryRun) {
      await this.syncer.add(outcome.sessionId);
    }
    report.sessions.push(outcome);
    this.written.add(keyOf(converted.key));
  }

  /** Waits until every new log is on disk; throws the first failed flush. */
  finish(): Promise<void> {
    return this.syncer.finish();
  }
}

/** A short reason for a file's error. */
export function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  return typeof message === "string" ? message : String(error);
}
