/**
 * The store's private index: what a checkpoint records in it (through `git status` or the
 * monitor's exact list), the size limits, the lock shared with other processes, and the repairs
 * for entries recorded `--info-only` by light checkpoints whose objects were never written.
 */
import { lstat, readFile, readlink, rm } from "node:fs/promises";
import path from "node:path";
import type { TakenCheckpoint } from "./checkpoint-store";
import { CheckpointError } from "./errors";
import { type GitPlace, runGit, splitNul } from "./git";
import { chainOf, type LightChain } from "./light-checkpoints";
import { isLightId, readLightRecords } from "./light-records";
import { listChanged } from "./list-changed";
import { writeLooseObject } from "./loose-objects";

/** A private index lock older than this was left by a killed process. */
const STALE_LOCK_MS = 60_000;

/** The private index of one store, with the workspace's size limits. */
export class PrivateIndex {
  private readonly place: GitPlace;
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;

  constructor(place: GitPlace, options: { maxFileBytes: number; maxFiles: number }) {
    this.place = place;
    this.maxFileBytes = options.maxFileBytes;
    this.maxFiles = options.maxFiles;
  }

  /**
   * Asks `git status` what changed (everything, or under `only`), records it in the private index
   * and returns the files left out for their size.
   */
  async listAndRecord(
    only: readonly string[] | undefined,
    also: readonly string[] = [],
    infoOnly = false,
  ) {
    const listed = only?.length === 0 ? [] : await listChanged(this.place, only);
    const { add, omitted } = await this.sortBySize([...listed, ...also]);
    await this.updateIndex(add, omitted, infoOnly);
    return omitted;
  }

  /**
   * The monitor's exact list (no watched folder moved or deleted) recorded in one git process,
   * without `git status`: when every listed path is gone or a file or symlink within the size
   * limit, `update-index --remove` without `--add` refreshes the tracked ones and drops the gone
   * ones. A path the index does not hold (a new file, which may be ignored) makes git refuse the
   * whole batch before writing anything: false, and the caller asks `git status` as before.
   */
  async updateTracked(listed: readonly string[], infoOnly = false): Promise<boolean> {
    const paths = [...new Set(listed)];
    const plain = await Promise.all(
      paths.map((relative) =>
        lstat(path.join(this.place.workTree, relative)).then(
          (stat) => (stat.isFile() && stat.size <= this.maxFileBytes) || stat.isSymbolicLink(),
          () => true, // gone: a tracked file is dropped, an untracked one is no entry
        ),
      ),
    );
    if (plain.includes(false)) return false;
    try {
      await this.withIndexLock(() =>
        runGit(
          this.place,
          ["update-index", "-z", "--remove", ...(infoOnly ? ["--info-only"] : []), "--stdin"],
          { input: `${paths.join("\0")}\0` },
        ),
      );
      return true;
    } catch (error) {
      if (CheckpointError.isInstance(error) && error.code === "GIT_FAILED") return false;
      throw error;
    }
  }

  /**
   * Records again every index entry whose object the store lacks (`ls-files -s` checked with
   * `cat-file --batch-check`): the fallback when a full checkpoint's `write-tree` fails.
   */
  async repairIndex(): Promise<void> {
    const listed = splitNul((await runGit(this.place, ["ls-files", "-s", "-z"])).stdout);
    const entries = listed
      .map((line) => {
        const [meta = "", file = ""] = line.split("\t");
        const [mode = "", oid = ""] = meta.split(" ");
        return { mode, oid, file };
      })
      .filter((entry) => entry.mode !== "160000" && entry.file !== "");
    if (entries.length === 0) return;
    const checked = await runGit(this.place, ["cat-file", "--batch-check"], {
      input: `${entries.map((entry) => entry.oid).join("\n")}\n`,
    });
    const missing = new Set(
      checked.stdout
        .toString("utf8")
        .split("\n")
        .filter((line) => line.endsWith(" missing"))
        .map((line) => line.split(" ")[0]),
    );
    const paths = entries.filter((entry) => missing.has(entry.oid)).map((entry) => entry.file);
    if (paths.length === 0) return;
    // Dropped, then added again: git hashes them now (it skips an entry whose stat matches).
    await this.withIndexLock(() =>
      runGit(this.place, ["update-index", "-z", "--force-remove", "--stdin"], {
        input: `${paths.join("\0")}\0`,
      }),
    );
    await this.listAndRecord([], paths);
  }

  /** Writes the blob of each path's file (a symlink's target) as a loose object. */
  async writeBlobsOf(paths: ReadonlyMap<string, number>): Promise<void> {
    await Promise.all(
      [...paths].map(async ([file, idLength]) => {
        const full = path.join(this.place.workTree, file);
        const info = await lstat(full).catch(() => undefined);
        if (info === undefined || (!info.isFile() && !info.isSymbolicLink())) return;
        if (info.size > this.maxFileBytes) return;
        const content = info.isSymbolicLink()
          ? await readlink(full, { encoding: "buffer" }).catch(() => undefined)
          : await readFile(full).catch(() => undefined);
        if (content !== undefined) {
          await writeLooseObject(this.place.gitDir, "blob", content, idLength);
        }
      }),
    );
  }

  /** Splits listed paths into those to record and those left out for their size. */
  private async sortBySize(
    listed: readonly string[],
  ): Promise<{ add: string[]; omitted: TakenCheckpoint["omitted"] }> {
    const paths = [...new Set(listed)].filter((entry) => !entry.endsWith("/"));
    if (paths.length > this.maxFiles) {
      throw new CheckpointError(
        "TOO_MANY_FILES",
        `the workspace has more than ${this.maxFiles} files to record`,
      );
    }
    const sizes = await Promise.all(
      paths.map((relative) =>
        lstat(path.join(this.place.workTree, relative)).then(
          (stat) => (stat.isFile() ? stat.size : 0),
          () => 0, // gone: update-index --remove drops it
        ),
      ),
    );
    const add: string[] = [];
    const omitted: TakenCheckpoint["omitted"] = [];
    for (const [index, relative] of paths.entries()) {
      const bytes = sizes[index] ?? 0;
      if (bytes > this.maxFileBytes) omitted.push({ path: relative, reason: "too-large", bytes });
      else add.push(relative);
    }
    return { add, omitted };
  }

  /** Records `add` in the private index and drops `omitted` from it. */
  private async updateIndex(
    add: readonly string[],
    omitted: TakenCheckpoint["omitted"],
    infoOnly = false,
  ): Promise<void> {
    if (add.length > 0) {
      const flags = infoOnly ? ["--info-only"] : [];
      await this.withIndexLock(() =>
        runGit(this.place, ["update-index", "-z", "--add", "--remove", ...flags, "--stdin"], {
          input: `${add.join("\0")}\0`,
        }),
      );
    }
    if (omitted.length > 0) {
      await this.withIndexLock(() =>
        runGit(this.place, ["update-index", "-z", "--force-remove", "--stdin"], {
          input: `${omitted.map((entry) => entry.path).join("\0")}\0`,
        }),
      );
    }
  }

  /**
   * Runs an index-writing git command; while another process (a second run in this workspace)
   * holds the private index's lock, waits and retries (up to ~5 s). A lock older than a minute
   * is a killed process's and is removed.
   */
  private async withIndexLock<T>(command: () => Promise<T>): Promise<T> {
    const lock = `${this.place.indexFile}.lock`;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await command();
      } catch (error) {
        const locked = CheckpointError.isInstance(error) && error.code === "GIT_INDEX_LOCKED";
        if (!locked || attempt >= 100) throw error;
        const info = await lstat(lock).catch(() => undefined);
        if (info !== undefined && Date.now() - info.mtimeMs > STALE_LOCK_MS) {
          await rm(lock, { force: true });
        } else {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }
  }
}

/**
 * The paths the private index may hold without their objects (recorded `--info-only` by light
 * checkpoints): this process's `chains`, and the chain of `previous` when it is a light
 * checkpoint of another process (its records read from the store folder `dir`). A full
 * checkpoint records them again, writing the objects.
 */
export async function pathsToRepair(
  chains: Iterable<LightChain>,
  previous: string | undefined,
  dir: string,
): Promise<Map<string, number>> {
  const paths = new Map<string, number>();
  for (const chain of chains) {
    for (const file of chain.cumulative.keys()) paths.set(file, chain.baseTree.length);
  }
  if (previous !== undefined && isLightId(previous)) {
    const read = await readLightRecords(dir);
    const found = (() => {
      try {
        return chainOf(previous, read, dir);
      } catch {
        return undefined;
      }
    })();
    for (const record of found?.records ?? []) {
      for (const entry of record.entries) paths.set(entry.path, record.base.length);
    }
  }
  return paths;
}
