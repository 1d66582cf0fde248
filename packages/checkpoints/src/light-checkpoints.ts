import { readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { CheckpointError } from "./errors";
import type { GitPlace } from "./git";
import {
  INLINE_LIMIT,
  isLightId,
  type LightEntry,
  type LightRecord,
  type LightRecords,
  missingLightRecord,
} from "./light-records";
import { blobId, writeLooseObject, writeLooseObjectSync } from "./loose-objects";
import { applyToTree, type PathState } from "./tree-build";
import type { TreeChange } from "./tree-diff";

/** A path's mode and blob in one state (`000000` and a zero id: no such path). */
export interface Side {
  mode: string;
  oid: string;
}

/** One path's change from the base: its state there and now. */
export interface CumulativeEntry {
  base: Side;
  now: Side;
}

/** The state of a session's chain of light checkpoints in this process. */
export interface LightChain {
  /** The full checkpoint (commit) the chain builds on, and its tree. */
  base: string;
  baseTree: string;
  /** The chain's last checkpoint (light, or the base). */
  last: string;
  /** Every path where `last` differs from the base. */
  cumulative: Map<string, CumulativeEntry>;
}

const ABSENT = "000000";

/** The cumulative state from `git diff-index --cached --no-renames <base tree>`. */
export function cumulativeOf(changes: readonly TreeChange[]): Map<string, CumulativeEntry> {
  const cumulative = new Map<string, CumulativeEntry>();
  for (const change of changes) {
    cumulative.set(change.path, {
      base: { mode: change.oldMode, oid: change.oldBlob },
      now: { mode: change.newMode, oid: change.newBlob },
    });
  }
  return cumulative;
}

/** One path whose state differs between the chain's last checkpoint and now. */
export interface Step {
  path: string;
  before: Side;
  after: Side;
}

/** The paths where the state `next` differs from `previous` (both relative to one base). */
export function stepsBetween(
  previous: ReadonlyMap<string, CumulativeEntry>,
  next: ReadonlyMap<string, CumulativeEntry>,
): Step[] {
  const steps: Step[] = [];
  const paths = new Set([...previous.keys(), ...next.keys()]);
  for (const file of paths) {
    const was = previous.get(file);
    const is = next.get(file);
    // a path in only one map is in its base state in the other
    const before = was?.now ?? is?.base;
    const after = is?.now ?? was?.base;
    if (before === undefined || after === undefined) continue;
    if (before.mode === after.mode && before.oid === after.oid) continue;
    steps.push({ path: file, before, after });
  }
  return steps.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The checkpoint's `changes` from its steps: exact renames paired by blob id. */
export function changesOf(steps: readonly Step[]): TreeChange[] {
  const added = steps.filter((step) => step.before.mode === ABSENT);
  const deleted = steps.filter((step) => step.after.mode === ABSENT);
  const from = new Map<Step, Step>();
  const used = new Set<Step>();
  for (const add of added) {
    const source = deleted.find((gone) => !used.has(gone) && gone.before.oid === add.after.oid);
    if (source === undefined) continue;
    used.add(source);
    from.set(add, source);
  }
  const changes: TreeChange[] = [];
  for (const step of steps) {
    if (used.has(step)) continue;
    const source = from.get(step);
    const base = source ?? step;
    const change: TreeChange["change"] =
      source !== undefined
        ? "renamed"
        : step.before.mode === ABSENT
          ? "added"
          : step.after.mode === ABSENT
            ? "deleted"
            : step.before.oid === step.after.oid
              ? "mode"
              : "modified";
    changes.push({
      path: step.path,
      change,
      ...(source === undefined ? {} : { from: source.path }),
      oldMode: base.before.mode,
      oldBlob: base.before.oid,
      newMode: step.after.mode,
      newBlob: step.after.oid,
    });
  }
  return changes;
}

/**
 * The record's entries for `steps`: each file's bytes read now (a symlink's target) and checked
 * against the blob id git recorded; larger than {@link INLINE_LIMIT}, written as a loose git
 * object and named by id. Returns the paths whose bytes no longer match (the file changed after
 * git hashed it) instead, when any.
 */
export async function entriesOf(
  gitDir: string,
  root: string,
  steps: readonly Step[],
): Promise<{ entries: LightEntry[] } | { mismatched: string[] }> {
  const read = await Promise.all(
    steps.map(async (step): Promise<LightEntry | undefined> => {
      const { mode, oid } = step.after;
      if (mode === ABSENT) return { path: step.path, mode };
      if (mode === "160000") return { path: step.path, mode, oid };
      const file = path.join(root, step.path);
      const content =
        mode === "120000"
          ? await readlink(file, { encoding: "buffer" }).catch(() => undefined)
          : await readFile(file).catch(() => undefined);
      if (content === undefined || blobId(content, oid.length) !== oid) return undefined;
      if (content.length > INLINE_LIMIT) {
        await writeLooseObject(gitDir, "blob", content, oid.length);
        return { path: step.path, mode, oid };
      }
      return { path: step.path, mode, content };
    }),
  );
  const mismatched = steps.filter((_, index) => read[index] === undefined).map((s) => s.path);
  if (mismatched.length > 0) return { mismatched };
  return { entries: read.filter((entry): entry is LightEntry => entry !== undefined) };
}

/**
 * The records from light checkpoint `id` back to its base, newest first, and the base (a full
 * checkpoint's commit id). Throws `CHECKPOINT_NOT_FOUND` naming the first record missing.
 */
export function chainOf(
  id: string,
  read: LightRecords,
  dir: string,
): { records: LightRecord[]; base: string } {
  const records: LightRecord[] = [];
  let current = id;
  while (isLightId(current)) {
    const record = read.records.get(current);
    if (record === undefined || records.length > read.records.size) {
      throw missingLightRecord(current, dir, read, id);
    }
    records.push(record);
    current = record.parent;
  }
  const base = records[0]?.base ?? current;
  if (records.some((record) => record.base !== base) || current !== base) {
    throw new CheckpointError(
      "CHECKPOINT_NOT_FOUND",
      `light checkpoint ${id} has a broken chain (it should start at ${base}, starts at ${current})`,
    );
  }
  return { records, base };
}

/** The state of every path a chain changed (the newest record of each path wins). */
export function foldChain(records: readonly LightRecord[]): Map<string, LightEntry> {
  const state = new Map<string, LightEntry>();
  for (const record of [...records].reverse()) {
    for (const entry of record.entries) state.set(entry.path, entry);
  }
  return state;
}

/**
 * Builds the tree of a light checkpoint: the chain's paths applied to the base tree in-process
 * (only the folders on those paths are read and written; the stored contents are written as
 * loose objects first).
 */
export async function buildTree(
  place: GitPlace,
  baseTree: string,
  state: ReadonlyMap<string, LightEntry>,
): Promise<string> {
  const zero = "0".repeat(baseTree.length);
  const changes = new Map<string, PathState>();
  for (const entry of state.values()) {
    const oid =
      entry.content === undefined
        ? (entry.oid ?? zero)
        : writeLooseObjectSync(place.gitDir, "blob", entry.content, baseTree.length);
    changes.set(entry.path, { mode: entry.mode, oid });
  }
  return applyToTree(place, baseTree, changes);
}
