/**
 * Continuous import: every look imports only the source files that are new or changed since the
 * last one (`source-watch.ts`), so a look where nothing changed costs a few `stat`s and a grown
 * session is read again alone. What `tapedeck import --watch` runs in a loop and what the viewer
 * and `tapedeck sessions …` run first when the home's auto import is on.
 */
import { join } from "node:path";
import type { SessionStore } from "@tapedeck/session-store";
import { type GrownSource, importGrown, isGrownSource, recordWhole } from "./grown-import";
import type { FileReport } from "./import-file";
import { type ImportSummary, importSessions, summarize } from "./import-run";
import type { KeptConversion } from "./kept-conversion";
import { defaultLocations, type ImportEnvironment } from "./locate";
import { lookAtOpencode } from "./opencode-watch";
import {
  keepWatchState,
  type LookResult,
  loadWatchState,
  lookForChanges,
  recordSeen,
  saveWatchState,
} from "./source-watch";
import type { ImportSource } from "./types";

/**
 * The sources continuous import follows: every tool with a default location. Transcript files
 * are statted (`source-watch.ts`); opencode's database is asked which sessions changed once its
 * files moved, its older `storage/` folder (one JSON file per message and part, before 1.2
 * migrated it into the database) statted per session (`opencode-watch.ts`).
 */
export const WATCHED_SOURCES = [
  "claude-code",
  "codex",
  "pi",
  "opencode",
  "gemini",
] as const satisfies ImportSource[];

/** Options of {@link importChanged}. */
export interface ImportChangedOptions {
  store: SessionStore;
  /** Folder holding the per-source state files (the home's `import/`). */
  stateDir: string;
  /** Sources to look at; default {@link WATCHED_SOURCES}. */
  sources?: readonly ImportSource[];
  /** For the default folders; default `process.env`. */
  env?: ImportEnvironment;
  /** The clock, for tests. */
  now?: number;
}

/** What one look did, per source that had something new. */
export interface ImportChangedResult {
  /** Imports run (sources where files changed). */
  summaries: ImportSummary[];
  /** Files statted over all sources. */
  statted: number;
}

/**
 * Looks at each source's default folders and imports what changed; remembers what it saw in
 * `stateDir/<source>.json`. A file whose import failed (unreadable) is not remembered, so the
 * next look tries it again. Never throws for source content (as `importSessions`).
 */
export async function importChanged(options: ImportChangedOptions): Promise<ImportChangedResult> {
  const summaries: ImportSummary[] = [];
  let statted = 0;
  for (const source of options.sources ?? WATCHED_SOURCES) {
    const statePath = join(options.stateDir, `${source}.json`);
    const state = loadWatchState(statePath);
    if (source === "opencode") {
      const opencode = await lookAtOpencode(
        options.store,
        defaultLocations(source, options.env),
        state,
        options.now ?? Date.now(),
      );
      statted += opencode.statted;
      summaries.push(...opencode.summaries);
      if (opencode.dirty) saveWatchState(statePath, state);
      else keepWatchState(statePath, state);
      continue;
    }
    const look = lookForChanges(
      source,
      defaultLocations(source, options.env),
      state,
      options.now ?? Date.now(),
    );
    statted += look.statted;
    if (look.changed.length > 0) {
      const summary = isGrownSource(source)
        ? await importGrownOrWhole(options.store, options.stateDir, source, look.changed)
        : await importSessions({ store: options.store, source, paths: look.changed });
      summaries.push(summary);
      recordSeen(state, withoutFailed(look, summary));
      saveWatchState(statePath, state);
    } else if (look.dirty) {
      saveWatchState(statePath, state);
    } else {
      keepWatchState(statePath, state);
    }
  }
  return { summaries, statted };
}

/**
 * Imports the changed files of Codex or Claude Code: each one that grew from a kept record by
 * converting its new lines only (`grown-import.ts`), the others whole, keeping a record of each
 * for the next look. The summary is the one a whole import of every file would give.
 */
async function importGrownOrWhole(
  store: SessionStore,
  stateDir: string,
  source: GrownSource,
  paths: readonly string[],
): Promise<ImportSummary> {
  const reports = new Map<string, FileReport>();
  const whole: string[] = [];
  for (const path of paths) {
    const report = await importGrown(store, stateDir, source, path);
    if (report === undefined) whole.push(path);
    else reports.set(path, report);
  }
  if (whole.length > 0) {
    const kept = new Map<string, KeptConversion>();
    const summary = await importSessions({ store, source, paths: whole, kept });
    recordWhole(stateDir, source, summary, kept);
    if (reports.size === 0) return summary;
    return summarize(source, [...paths], false, [...reports.values(), ...summary.files]);
  }
  return summarize(source, [...paths], false, [...reports.values()]);
}

/** The files seen, less those of units that could not be read (tried again next look). */
function withoutFailed(look: LookResult, summary: ImportSummary): LookResult["seen"] {
  const failed = new Set(
    summary.files.filter((file) => file.error !== undefined).map((f) => f.path),
  );
  if (failed.size === 0) return look.seen;
  const kept = new Map(look.seen);
  for (const path of kept.keys()) {
    if (
      failed.has(path) ||
      [...failed].some((unit) => path.startsWith(unit.replace(/\.jsonl$/, "/")))
    )
      kept.delete(path);
  }
  return kept;
}
