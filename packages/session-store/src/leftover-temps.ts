/**
 * Temp files a killed process left in the store's folders. Every file the store creates goes
 * through a temp file beside it (`tempPathIn`): in the sessions folder a new log, a torn tail's
 * sidecar, an import's spares; in `locks` a lock file or reclaim marker; in the home a journal
 * generation. Each is linked or renamed into place; a process killed in between (SIGKILL, a power
 * cut) leaves the temp file (in the sessions folder, a copy of a log), never listed and never
 * taken again. A store removes those of dead processes once per folder, when it lists the folder
 * anyway (the sessions folder at its first `scan` / `sessionIds` or spares, `locks` when the
 * journal is read) or, for the home, when it makes a journal generation: never an extra listing
 * on a command's path.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { parseTempName, processAlive } from "./fs-util";
import { sessionIdOfFileName } from "./log-names";

/**
 * A temp file of a process still running here is left alone unless this old: the same pid on
 * another machine sharing the folder, or a pid reused since. The store's temp files live for
 * the time of one write (spares, about a second).
 */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/** The label of an import's spares (`.new-log.<pid>.<stamp>.<n>.tmp`). */
export const SPARE_LABEL = "new-log";

/** A torn tail's sidecar name after its log's (`<id>.jsonl.torn-<offset>-<time>[-<n>]`). */
const sidecarSuffix = /^\.torn-[0-9]+-[0-9A-Za-z-]+$/;

/**
 * Whether `label` (of a `tempPathIn` name) is one the store gives its temp files in the sessions
 * folder: an import's spares, a log (`<id>.jsonl`) or a log's sidecar. Anything else is someone
 * else's file.
 */
export function isSessionsTempLabel(label: string): boolean {
  if (label === SPARE_LABEL) return true;
  const log = /^[0-9a-f-]{36}\.jsonl/.exec(label)?.[0];
  if (log === undefined || sessionIdOfFileName(log) === undefined) return false;
  return log.length === label.length || sidecarSuffix.test(label.slice(log.length));
}

/** Whether `label` is one the store gives its temp files in `<home>/locks` (lock, reclaim marker). */
export function isLocksTempLabel(label: string): boolean {
  const match = /^([0-9a-f-]{36})\.lock(?:\.reclaim)?$/.exec(label);
  return match !== null && sessionIdOfFileName(`${match[1]}.jsonl`) !== undefined;
}

/**
 * Whether a name seen when listing a folder may be a temp file of the store (cheap: a
 * listing tests each name; {@link LeftoverTemps.sweep} checks the exact shape).
 */
export function mayBeTempName(name: string): boolean {
  return name.startsWith(".") && name.endsWith(".tmp");
}

/**
 * The store's temp files in one of its folders that their processes left: swept at most once per
 * store, on the first listing (or spares, or journal generation) that calls for it.
 */
export class LeftoverTemps {
  private swept: Promise<void> | undefined;

  /**
   * `isOurLabel`: whether a temp name's label is one the store gives its temp files in `folder`
   * (default: the sessions folder's, {@link isSessionsTempLabel}).
   */
  constructor(
    private readonly folder: string,
    private readonly isOurLabel: (label: string) => boolean = isSessionsTempLabel,
  ) {}

  /**
   * Removes the leftover temp files among `names` (the folder's entries, just listed), or among
   * the folder's entries listed now when `names` is not given; only the first call of a store
   * does anything. Resolves when done; never rejects (a folder that cannot be listed, a file that
   * cannot be removed, are left as they are).
   */
  sweep(names?: readonly string[]): Promise<void> {
    this.swept ??= this.removeLeftovers(names);
    return this.swept;
  }

  /** The promise of the sweep already started, if any (tests wait for it). */
  done(): Promise<void> {
    return this.swept ?? Promise.resolve();
  }

  private async removeLeftovers(listed: readonly string[] | undefined): Promise<void> {
    let names: readonly string[];
    try {
      names = listed ?? (await fs.promises.readdir(this.folder));
    } catch {
      return; // Not listed (removed, or not a folder yet): nothing to sweep.
    }
    const now = Date.now();
    for (const name of names) {
      const temp = parseTempName(name);
      if (temp === undefined || !this.isOurLabel(temp.label)) continue;
      const path = join(this.folder, name);
      if (processAlive(temp.pid)) {
        const stat = await fs.promises.lstat(path).catch(() => undefined);
        if (stat === undefined || now - stat.mtimeMs < STALE_TEMP_MS) continue;
      }
      await fs.promises.unlink(path).catch(() => undefined);
    }
  }
}
