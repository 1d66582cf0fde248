import { readdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { type GitPlace, runGit } from "./git";
import { readLightRecords, rewriteLightRecords } from "./light-records";
import { readRewindsAt } from "./rewind-journal";

/** Undo checkpoints kept per workspace (the latest rewinds' `undo` and `target`). */
export const KEPT_REWINDS = 20;

/**
 * The checkpoints' share of the home, in the shape of host's `StorageContributor`: usage, and
 * reclaim of what no live session (nor a recent rewind) references.
 */
export interface CheckpointStorage {
  readonly kind: "checkpoints";
  /** Bytes and files under `<home>/checkpoints`. */
  usage(): Promise<{ bytes: number; files: number }>;
  /**
   * Drops the checkpoints of sessions not in `live` (session ids outside the trash) and packs
   * the rest; a workspace store left with nothing is removed whole. With `dryRun`, changes
   * nothing and returns what removing whole stores would free (a lower bound).
   */
  reclaim(live: ReadonlySet<string>, options: { dryRun: boolean }): Promise<{ bytes: number }>;
}

async function folderUsage(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await folderUsage(full);
      bytes += inner.bytes;
      files += inner.files;
    } else {
      const info = await stat(full).catch(() => undefined);
      if (info !== undefined) {
        bytes += info.size;
        files += 1;
      }
    }
  }
  return { bytes, files };
}

/** Which refs of one workspace store are still wanted. */
async function refsOf(place: GitPlace): Promise<string[]> {
  const { stdout } = await runGit(place, ["for-each-ref", "--format=%(refname)", "refs/tapedeck/"]);
  return stdout
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "");
}

async function reclaimStore(
  dir: string,
  live: ReadonlySet<string>,
  dryRun: boolean,
): Promise<number> {
  const place: GitPlace = {
    gitDir: path.join(dir, "git"),
    indexFile: path.join(dir, "index"),
    workTree: dir,
  };
  const refs = await refsOf(place);
  const rewinds = (await readRewindsAt(dir)).slice(-KEPT_REWINDS);
  const keptUndo = new Set(rewinds.flatMap((entry) => [entry.undo, entry.target]));
  // a light undo checkpoint's ref names its base (a commit)
  const records = (await readLightRecords(dir)).records;
  for (const id of [...keptUndo]) {
    const base = records.get(id)?.base;
    if (base !== undefined) keptUndo.add(base);
  }
  const dead: string[] = [];
  const sessionRefs = refs.filter((ref) => ref.startsWith("refs/tapedeck/sessions/"));
  for (const ref of sessionRefs) {
    if (!live.has(ref.slice("refs/tapedeck/sessions/".length))) dead.push(ref);
  }
  const liveSessions = sessionRefs.length - dead.length;
  const before = (await folderUsage(dir)).bytes;
  if (liveSessions === 0 && rewinds.length === 0) {
    if (!dryRun) await rm(dir, { recursive: true, force: true });
    return before;
  }
  if (dryRun) return 0;
  for (const ref of refs.filter((name) => name.startsWith("refs/tapedeck/undo/"))) {
    const { stdout } = await runGit(place, ["rev-parse", ref]);
    if (!keptUndo.has(stdout.toString("utf8").trim())) dead.push(ref);
  }
  // Everything still referenced: nothing to reclaim (packing alone is not reclaiming).
  if (dead.length === 0) return 0;
  await runGit(place, ["update-ref", "--stdin"], {
    input: dead.map((ref) => `delete ${ref}\n`).join(""),
  });
  // HEAD names the workspace's last checkpoint only to speed up the next listing: it must not
  // keep a dropped session's checkpoint alive.
  await writeFile(path.join(place.gitDir, "HEAD"), "ref: refs/heads/main\n");
  // A run taking a checkpoint right now writes objects before its ref: an hour's grace.
  await runGit(place, ["reflog", "expire", "--expire=now", "--all"], { bare: true });
  // Light checkpoints are kept while their base commit is: a live session's ref reaches every
  // base its records name (a full checkpoint's parent is the previous chain's base).
  const reachable = await runGit(place, ["rev-list", "--all"], { bare: true });
  const bases = new Set(reachable.stdout.toString("utf8").split("\n"));
  await rewriteLightRecords(dir, (record) => bases.has(record.base));
  // Run bare: no index names objects (the private index may hold entries recorded --info-only).
  await runGit(place, ["gc", "--quiet", "--prune=1.hour.ago"], { bare: true });
  const after = (await folderUsage(dir)).bytes;
  return Math.max(0, before - after);
}

/** The checkpoints' storage contributor for `home`. */
export function checkpointStorage(home: string): CheckpointStorage {
  const root = path.join(home, "checkpoints");
  return {
    kind: "checkpoints",
    usage: () => folderUsage(root),
    async reclaim(live, options) {
      let bytes = 0;
      const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        bytes += await reclaimStore(path.join(root, entry.name), live, options.dryRun);
      }
      return { bytes };
    },
  };
}
