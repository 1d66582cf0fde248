/**
 * `tapedeck storage`: the home's bytes by kind and what `compact` would save, compaction of cold
 * sessions and reclaim of unreferenced data. Every kind is a {@link StorageContributor}; the
 * store's own kinds come from `SessionStore.storageKinds()`.
 */
import * as fs from "node:fs";
import { TapedeckError } from "@tapedeck/session";
import type { CompactResult, SessionStore } from "@tapedeck/session-store";
import { importStateContributor } from "./import-state-storage";
import { indexPath } from "./index-path";
import type { StorageContributor } from "./storage-contributor";
import { checkpointsContributor } from "./workspace-checkpoints";

/** Days without an append after which a session is cold (compressed by `storage compact`). */
export const DEFAULT_COLD_DAYS = 7;

/**
 * The cold age in ms from `TAPEDECK_COLD_DAYS` (days, a decimal number ≥ 0, or `off`), else
 * {@link DEFAULT_COLD_DAYS}; `null` for `off`. Anything else is refused with one sentence.
 */
export function coldAgeMs(env: Readonly<Record<string, string | undefined>>): number | null {
  const raw = env.TAPEDECK_COLD_DAYS?.trim();
  if (raw === undefined || raw === "") return DEFAULT_COLD_DAYS * 86_400_000;
  if (raw === "off") return null;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 86_400_000;
  throw new TapedeckError(
    "INVALID_OPTIONS",
    `TAPEDECK_COLD_DAYS must be a number of days or "off", not ${JSON.stringify(raw)}.`,
  );
}

/**
 * A duration as the CLI takes it: a whole number with `d`, `h`, `m` or `s` (`7d`, `12h`); ms.
 * Anything else is refused with one sentence.
 */
export function parseDuration(text: string): number {
  const match = /^(\d+)(d|h|m|s)$/.exec(text.trim());
  if (match === null) {
    throw new TapedeckError(
      "INVALID_OPTIONS",
      `${JSON.stringify(text)} is not a duration: write a whole number and d, h, m or s (7d, 12h).`,
    );
  }
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[
    match[2] as "d" | "h" | "m" | "s"
  ];
  return Number(match[1]) * unit;
}

/** The search index's files (database, write-ahead log, shared memory). */
function indexContributor(home: string): StorageContributor {
  return {
    kind: "index",
    async usage() {
      let bytes = 0;
      let files = 0;
      for (const suffix of ["", "-wal", "-shm"]) {
        const stat = fs.statSync(`${indexPath(home)}${suffix}`, { throwIfNoEntry: false });
        if (stat?.isFile()) {
          bytes += stat.size;
          files += 1;
        }
      }
      return { bytes, files };
    },
    async reclaim() {
      return { bytes: 0 };
    },
  };
}

/**
 * Every contributor of the home: the store's kinds (kept tails among them), the index, import
 * state (`import-state-storage.ts`), the checkpoints, then `extra` (other packages' data,
 * registered by whoever owns it).
 */
export function storageContributors(
  store: SessionStore,
  extra: readonly StorageContributor[] = [],
): StorageContributor[] {
  return [
    ...store.storageKinds(),
    indexContributor(store.home),
    importStateContributor(store.home),
    checkpointsContributor(store.home),
    ...extra,
  ];
}

/** One row of {@link storageReport}. */
export interface StorageRow {
  kind: string;
  bytes: number;
  files: number;
}

/** What {@link storageReport} says. */
export interface StorageReport {
  rows: StorageRow[];
  /** Total bytes of every row. */
  bytes: number;
  /** Bytes `storage compact` would free now (cold logs compressed, unreferenced data reclaimed). */
  compactWouldSave: number;
  /** Sessions `compact` would compress. */
  coldSessions: number;
}

/** The home's bytes by kind and what compact would save (computed, nothing changed). */
export async function storageReport(
  store: SessionStore,
  contributors: readonly StorageContributor[],
  options: { olderThanMs: number | null },
): Promise<StorageReport> {
  const rows: StorageRow[] = [];
  for (const contributor of contributors) {
    rows.push({ kind: contributor.kind, ...(await contributor.usage()) });
  }
  const compact = await compactHome(store, contributors, { ...options, dryRun: true });
  return {
    rows,
    bytes: rows.reduce((sum, row) => sum + row.bytes, 0),
    compactWouldSave: compact.saved,
    coldSessions: compact.compressed,
  };
}

/** What {@link compactHome} did (or, with `dryRun`, would do). */
export interface CompactReport {
  /** Sessions compressed. */
  compressed: number;
  /** Sessions left plain because a writer held them. */
  busy: number;
  /** Bytes freed in all: logs compressed and data reclaimed. */
  saved: number;
  /** Of `saved`, bytes reclaimed by the contributors (unreferenced blobs, checkpoints …). */
  reclaimed: number;
}

/**
 * Compresses every session whose last append is at least `olderThanMs` old (none for `null`)
 * and no writer holds, then asks every contributor to reclaim what no live session needs.
 */
export async function compactHome(
  store: SessionStore,
  contributors: readonly StorageContributor[],
  options: { olderThanMs: number | null; dryRun: boolean },
): Promise<CompactReport> {
  const report: CompactReport = { compressed: 0, busy: 0, saved: 0, reclaimed: 0 };
  const ids = await store.sessionIds();
  if (options.olderThanMs !== null) {
    for (const sessionId of ids) {
      let result: CompactResult;
      try {
        result = await store.compact(sessionId, {
          olderThanMs: options.olderThanMs,
          dryRun: options.dryRun,
        });
      } catch {
        // A damaged log stays plain, where `sessions repair` and `verify` reach it.
        continue;
      }
      if (result.action === "compressed") {
        report.compressed += 1;
        report.saved += result.before - result.after;
      } else if (result.action === "busy") report.busy += 1;
    }
  }
  const live = new Set(ids);
  for (const contributor of contributors) {
    const { bytes } = await contributor.reclaim(live, { dryRun: options.dryRun });
    report.reclaimed += bytes;
  }
  report.saved += report.reclaimed;
  return report;
}

/** What {@link pruneHome} did (or, with `dryRun`, would do). */
export interface PruneReport {
  /** Sessions moved to the trash. */
  moved: string[];
  /** Their logs' bytes (uncompressed size). */
  bytes: number;
  /** Old sessions kept because a fork that stays reads them. */
  keptForForks: number;
  /** Old sessions a writer held, left in place. */
  busy: number;
}

/**
 * Moves every session last changed at least `olderThanMs` ago to the trash, never deleting:
 * a session a kept fork reads (its parent, recursively) stays, forks go before their parents,
 * and a session a writer holds is left alone.
 */
export async function pruneHome(
  store: SessionStore,
  options: { olderThanMs: number; dryRun: boolean; now?: number },
): Promise<PruneReport> {
  const now = options.now ?? Date.now();
  const { logs } = await store.scan();
  const parentOf = new Map<string, string>();
  const old = new Set<string>();
  const sizeOf = new Map<string, number>();
  for (const log of logs) {
    const parent = "header" in log ? log.header?.parent?.sessionId : undefined;
    if (parent !== undefined) parentOf.set(log.sessionId, parent);
    if (now - log.modifiedMs >= options.olderThanMs) old.add(log.sessionId);
    sizeOf.set(log.sessionId, log.size);
  }
  // A session that stays keeps its whole fork chain.
  let keptForForks = 0;
  for (const log of logs) {
    if (old.has(log.sessionId)) continue;
    for (
      let parent = parentOf.get(log.sessionId);
      parent !== undefined;
      parent = parentOf.get(parent)
    ) {
      if (old.delete(parent)) keptForForks += 1;
    }
  }
  const report: PruneReport = { moved: [], bytes: 0, keptForForks, busy: 0 };
  // Forks first: `delete` refuses a session that still has forks.
  const depth = (id: string): number => {
    let count = 0;
    for (
      let parent = parentOf.get(id);
      parent !== undefined && count < logs.length;
      parent = parentOf.get(parent)
    )
      count += 1;
    return count;
  };
  const order = [...old].sort((a, b) => depth(b) - depth(a));
  for (const sessionId of order) {
    if (!options.dryRun) {
      try {
        await store.delete(sessionId);
      } catch (error) {
        if (TapedeckError.isInstance(error) && error.code === "SESSION_BUSY") {
          report.busy += 1;
          continue;
        }
        throw error;
      }
    }
    report.moved.push(sessionId);
    report.bytes += sizeOf.get(sessionId) ?? 0;
  }
  return report;
}
