import { randomBytes } from "node:crypto";
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { lstat, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type GitPlace, runGit, splitNul } from "./git";
import { joinRelative, WatchTree } from "./watch-tree";

/** Options of {@link FsMonitor.start}. */
export interface FsMonitorOptions {
  /**
   * Events one interval between checkpoints may bring before the monitor assumes the kernel
   * dropped some (libuv drops inotify's overflow notice silently; an overflow means at least this
   * many arrived). Default: `/proc/sys/fs/inotify/max_queued_events`, else 16,384.
   */
  queueLimit?: number;
  /** Paths one interval may list before the next checkpoint checks everything (default 1,000). */
  maxListed?: number;
}

/**
 * What changed since the last checkpoint: the paths (files or folders, relative to the work tree;
 * a folder stands for everything under it), or `everything` with the reason the list cannot be
 * trusted.
 */
export type MonitorAnswer =
  | {
      everything: false;
      paths: string[];
      /**
       * A watched folder was moved or deleted since the last checkpoint: a listed path may stand
       * for the files that were under it (the checkpoint then asks `git status`).
       */
      foldersGone: boolean;
    }
  | { everything: true; reason: string };

/** How long a cookie may take to come back before the watcher is distrusted. */
const COOKIE_TIMEOUT_MS = 2_000;
/** Pathspecs per `ls-files` run when new folders are checked for being ignored. */
const PATHSPECS_PER_RUN = 500;

/** The inotify queue's size on this machine (the point past which events are dropped). */
function kernelQueueLimit(): number {
  try {
    const value = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim());
    return Number.isInteger(value) && value > 0 ? value : 16_384;
  } catch {
    return 16_384;
  }
}

/** `items` in runs of at most `size`. */
function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/** Folders git ignores as a whole (`dir/`), in the work tree or under `pathspecs`. */
async function ignoredFolders(place: GitPlace, pathspecs: readonly string[] = []) {
  const args = [
    "--literal-pathspecs",
    ...["ls-files", "-z", "--others", "--ignored", "--directory", "--exclude-standard"],
  ];
  const found = new Set<string>();
  const runs = pathspecs.length === 0 ? [[]] : chunk(pathspecs, PATHSPECS_PER_RUN);
  for (const specs of runs) {
    const result = await runGit(place, specs.length === 0 ? args : [...args, "--", ...specs]);
    for (const entry of splitNul(result.stdout)) if (entry.endsWith("/")) found.add(entry);
  }
  return found;
}

/** Files whose change alters what git ignores everywhere: the global excludes file(s). */
async function globalExcludeFiles(place: GitPlace): Promise<string[]> {
  const config = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  const files = [path.join(config, "git", "ignore")];
  const configured = await runGit(place, ["config", "--path", "--get", "core.excludesFile"], {
    okCodes: [1],
  }).catch(() => undefined);
  const value = configured?.stdout.toString("utf8").trim();
  if (value) files.push(path.resolve(place.workTree, value));
  return files;
}

/** A file's identity and version (`-` when missing). */
async function fileStamp(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  return info === undefined ? "-" : `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/** True when `pid` names a live process (signal 0 only checks). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A file-system monitor in the process that takes checkpoints: inotify watches on every folder
 * git could report ({@link WatchTree}) and the paths changed since the last checkpoint. Before a
 * checkpoint, {@link changedSince} waits until the watcher has read every event queued so far (a
 * cookie file written in a watched folder of its own comes back), then hands over the list and
 * starts a new one; `git status` then looks at those paths only (a pathspec) instead of `lstat`ing
 * every tracked file. Whenever the list cannot be trusted (the watcher not ready yet, an event
 * without a usable name, a burst that may have overflowed the kernel queue, a `.gitignore` or
 * global excludes change, another process that wrote the private index or watches the same
 * workspace, a failed checkpoint) the answer is `everything`: git checks every file as without a
 * monitor, so correctness never rests on the watcher. See `architecture/checkpoints.md`,
 * "File-system monitor".
 */
export class FsMonitor {
  private readonly tree: WatchTree;
  private readonly queueLimit: number;
  private readonly maxListed: number;
  private readonly dir: string;
  private cookieWatcher: FSWatcher | undefined;
  private readonly cookieWaiters = new Map<string, () => void>();
  private paths = new Set<string>();
  private full = false;
  private events = 0;
  private cookies = 0;
  /** A watched folder was moved or deleted since the last handover. */
  private foldersGone = false;
  private distrust: string | undefined = "the first checkpoint of this process";
  private ignoresChanged = false;
  private broken: string | undefined;
  private ready = false;
  private closed = false;
  private readonly pending = new Set<Promise<unknown>>();
  private newFolders = new Set<string>();
  private excludeFiles: string[] = [];
  private excludeStamps = "";
  private indexStamp = "";
  private started = 0;
  /** Milliseconds from start until every folder was watched (undefined: not yet). */
  setupMs: number | undefined;
  /** What the last {@link changedSince} answered. */
  lastAnswer: MonitorAnswer | undefined;

  private constructor(
    private readonly place: GitPlace,
    storeDir: string,
    options: FsMonitorOptions,
  ) {
    this.dir = path.join(storeDir, "monitors", `${process.pid}-${randomBytes(4).toString("hex")}`);
    this.queueLimit = options.queueLimit ?? kernelQueueLimit();
    this.maxListed = options.maxListed ?? 1_000;
    this.tree = new WatchTree(place.workTree, {
      event: (dir, kind, name) => this.onEvent(dir, kind, name),
      failed: (reason) => this.fail(reason),
    });
  }

  /**
   * Starts watching the work tree of `place` in the background (its cookies live in
   * `storeDir/monitors/<pid>-<hex>/`; those of dead processes are removed). Until every folder is
   * watched, checkpoints check everything; {@link whenReady} resolves once the walk is done.
   * Throws when its cookie folder cannot be made or watched (nothing is left open).
   */
  static async start(
    place: GitPlace,
    storeDir: string,
    options: FsMonitorOptions = {},
  ): Promise<FsMonitor> {
    const monitor = new FsMonitor(place, storeDir, options);
    try {
      await mkdir(monitor.dir, { recursive: true });
      await monitor.removeDeadFolders();
      monitor.cookieWatcher = watch(monitor.dir, { persistent: false, encoding: "utf8" });
    } catch (error) {
      await monitor.close();
      throw error;
    }
    monitor.cookieWatcher.on("change", (_kind, name) => {
      if (typeof name === "string") monitor.cookieWaiters.get(name)?.();
    });
    monitor.cookieWatcher.on("error", (error) => monitor.fail(`cookie watch: ${error.message}`));
    monitor.started = performance.now();
    monitor.track(monitor.watchAll());
    return monitor;
  }

  /** Folders watched now. */
  get watchCount(): number {
    return this.tree.count;
  }

  /** Resolves when the first walk (and every walk of a new folder so far) has finished. */
  async whenReady(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Removes the cookie folders of processes that are gone; lists those of live others. */
  private async removeDeadFolders(): Promise<string[]> {
    const parent = path.dirname(this.dir);
    const live: string[] = [];
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      const full = path.join(parent, name);
      const pid = Number(/^(\d+)-/.exec(name)?.[1]);
      if (full === this.dir || !Number.isInteger(pid)) continue;
      if (processAlive(pid)) live.push(name);
      else await rm(full, { recursive: true, force: true });
    }
    return live;
  }

  private track(work: Promise<unknown>): void {
    const settled = work.catch((error: unknown) => this.fail(String(error)));
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /** The first walk: watches every folder git does not ignore whole. */
  private async watchAll(): Promise<void> {
    const [ignored, excludeFiles] = await Promise.all([
      ignoredFolders(this.place),
      globalExcludeFiles(this.place),
    ]);
    this.excludeFiles = excludeFiles;
    this.excludeStamps = (await Promise.all(excludeFiles.map(fileStamp))).join(",");
    if (await this.tree.add("", ignored)) {
      this.ready = !this.closed && this.broken === undefined;
      this.setupMs = performance.now() - this.started;
    }
  }

  private onEvent(dir: string, kind: string, name: string | null): void {
    if (this.closed) return;
    // No name, or one that was not valid UTF-8 (a pathspec could not name it): check everything.
    if (name === null || name.includes("\uFFFD")) {
      this.distrust ??= "an event without a usable name";
      return;
    }
    this.events += 1;
    // As many events as the kernel queue holds: some may have been dropped, and the answer
    // will be "everything" anyway, so the paths are no longer worth keeping.
    if (this.events >= this.queueLimit) {
      this.distrust ??= `${this.events} events since the last checkpoint (queue limit ${this.queueLimit})`;
      this.paths.clear();
      return;
    }
    const relative = joinRelative(dir, name);
    this.record(relative);
    if (name === ".gitignore") this.ignoresChanged = true;
    if (kind !== "rename") return;
    // A folder moved or deleted: its watches follow the inode, not the name, so they go (the
    // path, a pathspec for everything under it, is recorded). Whatever has the name now is
    // looked at as a new folder.
    if (this.tree.has(relative)) {
      this.tree.remove(relative);
      this.foldersGone = true;
    }
    this.queueNewFolder(relative);
  }

  private record(relative: string): void {
    if (this.full) return;
    this.paths.add(relative);
    if (this.paths.size > this.maxListed) {
      this.full = true;
      this.paths.clear();
    }
  }

  private queueNewFolder(relative: string): void {
    const first = this.newFolders.size === 0;
    this.newFolders.add(relative);
    if (!first) return;
    this.track(
      new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.watchNewFolders()),
    );
  }

  /** Watches the names created since the last batch that are folders git does not ignore. */
  private async watchNewFolders(): Promise<void> {
    const names = [...this.newFolders];
    this.newFolders = new Set();
    const kinds = await Promise.all(
      names.map((name) =>
        lstat(path.join(this.place.workTree, name)).then(
          (info) => info.isDirectory(),
          () => false,
        ),
      ),
    );
    const folders = names.filter((name, index) => kinds[index] && !this.tree.has(name));
    if (folders.length === 0 || this.closed) return;
    const ignored = await ignoredFolders(
      this.place,
      folders.map((folder) => `${folder}/`),
    );
    await Promise.all(
      folders
        .filter((folder) => !ignored.has(`${folder}/`))
        .map((folder) => this.tree.add(folder, ignored)),
    );
  }

  private fail(reason: string): void {
    if (this.closed) return;
    this.broken ??= reason;
    this.ready = false;
    this.tree.close();
  }

  /** The store's own exclude rules changed (`info/exclude`): the next answer is "everything". */
  ignoreRulesChanged(): void {
    this.ignoresChanged = true;
  }

  /** Waits until every event queued before now has been read (a cookie file comes back). */
  private async drain(): Promise<void> {
    this.cookies += 1;
    const name = `cookie-${this.cookies}`;
    const seen = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), COOKIE_TIMEOUT_MS);
      this.cookieWaiters.set(name, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    await writeFile(path.join(this.dir, name), "");
    const back = await seen;
    this.cookieWaiters.delete(name);
    void rm(path.join(this.dir, name), { force: true }).catch(() => undefined);
    if (!back) this.distrust ??= "the watcher did not see its cookie in time";
    // Events read meanwhile may have named new folders: watch them before the interval closes.
    await this.whenReady();
  }

  /** What {@link outsideReasons} compares, read while the cookie comes back. */
  private async outsideState() {
    const [excludes, index, others] = await Promise.all([
      Promise.all(this.excludeFiles.map(fileStamp)).then((stamps) => stamps.join(",")),
      fileStamp(this.place.indexFile),
      this.removeDeadFolders(),
    ]);
    return { excludes, index, others };
  }

  /** Why the list cannot be trusted beyond what the events said, if it cannot. */
  private async outsideReasons(state: {
    excludes: string;
    index: string;
    others: readonly string[];
  }): Promise<string | undefined> {
    const { excludes, index, others } = state;
    let reason: string | undefined;
    if (others.length > 0) reason = "another process watches this workspace";
    if (index !== this.indexStamp) reason ??= "the private index was written by another process";
    if (excludes !== this.excludeStamps || this.ignoresChanged) {
      this.excludeStamps = excludes;
      this.ignoresChanged = false;
      // Folders no longer ignored get watched before the new interval starts.
      await this.tree.add("", await ignoredFolders(this.place));
      reason ??= "ignore rules changed";
    }
    return reason;
  }

  /**
   * Before a checkpoint's `git status`: what changed since the last checkpoint, and a new list
   * started for the next one. Call {@link settle} once the checkpoint's git commands are done.
   */
  async changedSince(): Promise<MonitorAnswer> {
    let reason: string | undefined = this.broken ?? (this.closed ? "closed" : undefined);
    if (reason === undefined && !this.ready) reason = "the watcher is not ready";
    if (reason === undefined) {
      const [, state] = await Promise.all([this.drain(), this.outsideState()]);
      reason = await this.outsideReasons(state);
    }
    reason ??= this.distrust ?? (this.full ? `more than ${this.maxListed} paths` : undefined);
    // From here to the new list nothing awaits: every later event lands in it.
    const paths = [...this.paths];
    const foldersGone = this.foldersGone;
    this.paths = new Set();
    this.foldersGone = false;
    this.full = false;
    this.events = 0;
    // Folders watched while the first walk ran may have changed before their watch began: the
    // first list to trust starts once every folder is watched.
    this.distrust = this.ready ? undefined : "the watcher was not ready at the last checkpoint";
    this.lastAnswer =
      reason === undefined
        ? { everything: false, paths, foldersGone }
        : { everything: true, reason };
    return this.lastAnswer;
  }

  /**
   * After a checkpoint's git commands: remembers the private index as they left it (a later
   * change is another process's). A failed checkpoint makes the next one check everything.
   */
  async settle(succeeded: boolean): Promise<void> {
    if (!succeeded) this.distrust ??= "the last checkpoint failed";
    this.indexStamp = await fileStamp(this.place.indexFile);
  }

  /** Stops watching and removes the monitor's folder. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ready = false;
    this.tree.close();
    this.cookieWatcher?.close();
    this.cookieWatcher = undefined;
    for (const resolve of this.cookieWaiters.values()) resolve();
    await this.whenReady();
    await rm(this.dir, { recursive: true, force: true });
  }
}
