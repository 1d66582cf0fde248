import { type FSWatcher, watch } from "node:fs";
import { readdir } from "node:fs/promises";

/** Where a {@link WatchTree} sends what it sees. */
export interface WatchSink {
  /**
   * One inotify event of folder `dir` (relative to the root, `""` the root itself): `rename` for
   * a name created, deleted or moved, `change` for contents or attributes; `name` is the entry
   * (or, for an event on the folder itself, its own base name), `null` when Node gave none.
   */
  event(dir: string, kind: string, name: string | null): void;
  /** Watching can no longer be trusted (a watch refused: the inotify limit; a watcher error). */
  failed(reason: string): void;
}

/** What {@link WatchTree} `addOne` returns for a refused watch (the walk stops). */
const REFUSED: string[] = [];

/** `dir` joined with `name`, relative to the root (`""` is the root). */
export function joinRelative(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

/**
 * One inotify watch (Node's `fs.watch`, not recursive) per folder of the work tree that git
 * could report: `.git`, nested repositories' insides and the folders git ignores as a whole are
 * left out. A folder is watched before it is read, so an entry made meanwhile is either read or
 * seen as an event. All watches share Node's one inotify descriptor, so their events (and the
 * monitor's cookies) arrive in the order the kernel queued them.
 */
export class WatchTree {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly sink: WatchSink,
  ) {}

  /** Folders watched now. */
  get count(): number {
    return this.watchers.size;
  }

  /** True when folder `relative` is watched. */
  has(relative: string): boolean {
    return this.watchers.has(relative);
  }

  /**
   * Watches folder `start` and every folder below it that is not yet watched, not in `ignored`
   * (git's `dir/` spelling) and not inside a nested repository. Resolves false when a watch was
   * refused (the sink heard why) or the tree was closed.
   */
  async add(start: string, ignored: ReadonlySet<string>): Promise<boolean> {
    let level = [start];
    while (level.length > 0 && !this.closed) {
      const next: string[][] = await Promise.all(level.map((dir) => this.addOne(dir, ignored)));
      if (this.closed) return false;
      if (next.some((entry) => entry === REFUSED)) return false;
      level = next.flat();
    }
    return !this.closed;
  }

  /** Watches one folder, then reads it; returns the subfolders to watch next. */
  private async addOne(dir: string, ignored: ReadonlySet<string>) {
    if (!this.watchers.has(dir)) {
      try {
        const watcher = watch(dir === "" ? this.root : `${this.root}/${dir}`, {
          persistent: false,
          encoding: "utf8",
        });
        watcher.on("change", (kind, name) => {
          this.sink.event(dir, kind, typeof name === "string" ? name : null);
        });
        watcher.on("error", (error) => {
          this.sink.failed(`watching ${dir || "."} failed: ${error.message}`);
        });
        this.watchers.set(dir, watcher);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Gone meanwhile (deleted, or a file now): its parent's event already reported it.
        if (code === "ENOENT" || code === "ENOTDIR") return [];
        this.sink.failed(`cannot watch ${dir || "."}: ${(error as Error).message}`);
        return REFUSED;
      }
    }
    const entries = await readdir(dir === "" ? this.root : `${this.root}/${dir}`, {
      withFileTypes: true,
    }).catch(() => []);
    const nested = dir !== "" && entries.some((entry) => entry.name === ".git");
    const below: string[] = [];
    for (const entry of entries) {
      if (dir === "" && entry.name === ".git") continue;
      const relative = joinRelative(dir, entry.name);
      if (!nested && entry.isDirectory() && !ignored.has(`${relative}/`)) below.push(relative);
    }
    return below;
  }

  /** Stops watching folder `relative` and every folder below it (it was moved or deleted). */
  remove(relative: string): void {
    const prefix = `${relative}/`;
    for (const [dir, watcher] of this.watchers) {
      if (dir === relative || dir.startsWith(prefix)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
  }

  /** Closes every watch; nothing is reported after. */
  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
