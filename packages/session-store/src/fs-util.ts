import * as fs from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { toStorageFault } from "@tapedeck/session/core";

/** Node's own `require`, for a built-in loaded on first use. */
const requireBuiltin = createRequire(import.meta.url);

/**
 * `bytes` random bytes as hex (temp names, lock tokens, journal generations). `node:crypto` is
 * loaded on the first call: only writers need it, and reading commands (`tapedeck sessions
 * search`) then never load it (it costs a few ms of every start on Node 20).
 */
export function randomHex(bytes: number): string {
  const { randomBytes } = requireBuiltin("node:crypto") as typeof import("node:crypto");
  return randomBytes(bytes).toString("hex");
}

/** `fsync` that does not block the event loop. */
export const fsyncAsync: (fd: number) => Promise<void> = promisify(fs.fsync);

/** `close` that does not block the event loop. */
export const closeAsync: (fd: number) => Promise<void> = promisify(fs.close);

/**
 * `error` as a `StorageFaultError` naming `path` when it is a disk fault (full, quota, I/O), or
 * naming the Tapedeck `home` when it is read-only; else `error` itself: what the store throws
 * for a failed write.
 */
export function faultWriting(error: unknown, path: string, home: string): unknown {
  return toStorageFault(error, { path, home }) ?? error;
}

/** True when `error` is a Node system error with this `code`. */
export function hasErrorCode(error: unknown, code: string): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    (error as { code: unknown }).code === code
  );
}

/** A platform that cannot open a directory (Windows): its fsync is skipped. */
const cannotOpenDirectory = (error: unknown) =>
  hasErrorCode(error, "EISDIR") || hasErrorCode(error, "EPERM");

/** Some file systems refuse fsync on a directory; the data fsync already happened. */
const cannotSyncDirectory = (error: unknown) =>
  hasErrorCode(error, "EINVAL") || hasErrorCode(error, "EBADF");

/** A descriptor of `directory` for its fsync; `undefined` where directories cannot be opened (Windows). */
function openDirectory(directory: string): number | undefined {
  try {
    return fs.openSync(directory, "r");
  } catch (error) {
    if (cannotOpenDirectory(error)) return undefined;
    throw error;
  }
}

/**
 * fsyncs a directory, so that a file created, renamed or unlinked in it survives a power loss.
 * Platforms that cannot open a directory (Windows) skip it.
 */
export function fsyncDirectory(directory: string): void {
  const fd = openDirectory(directory);
  if (fd === undefined) return;
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    if (!cannotSyncDirectory(error)) throw error;
  } finally {
    fs.closeSync(fd);
  }
}

/** Fsyncs a file by path (its descriptor was closed after its write); an absent file: nothing. */
export async function fsyncFileAsync(path: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(path, "r");
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Fsyncs descriptor `fd` on the thread pool, then closes it (whether or not the fsync failed). */
export async function fsyncAndClose(fd: number): Promise<void> {
  try {
    await fsyncAsync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * {@link fsyncDirectory} with the fsync on the thread pool: the event loop goes on while the disk
 * commits. The folder is opened and closed synchronously (microseconds each; through the thread
 * pool they were two more hops before the fsync could start).
 */
export async function fsyncDirectoryAsync(directory: string): Promise<void> {
  const fd = openDirectory(directory);
  if (fd === undefined) return;
  try {
    await fsyncAsync(fd);
  } catch (error) {
    if (!cannotSyncDirectory(error)) throw error;
  } finally {
    fs.closeSync(fd);
  }
}

/** This thread's part of temp names: random once (worker threads share the process id). */
let tempStamp: string | undefined;
let tempCount = 0;

/**
 * A temp name beside `path` that `list()` never mistakes for a log (leading dot, `.tmp`), unique
 * to this process and thread (pid, a random stamp drawn once, a counter): an import creates one
 * per log, and drawing random bytes for each cost more than the name is worth.
 */
export function tempPathBeside(path: string): string {
  return tempPathIn(dirname(path), basename(path));
}

/** A temp name in `directory` as {@link tempPathBeside} makes them, named after `label`. */
export function tempPathIn(directory: string, label: string): string {
  tempStamp ??= `${process.pid}.${randomHex(6)}`;
  tempCount += 1;
  return join(directory, `.${label}.${tempStamp}.${tempCount.toString(36)}.tmp`);
}

/**
 * The label and process id in the name of a temp file {@link tempPathIn} made (of any process),
 * when `name` has exactly that shape (`.<label>.<pid>.<12 hex>.<base-36 count>.tmp`); else
 * `undefined` (`.notes.tmp` and other dot files a person keeps are never taken for one).
 */
export function parseTempName(name: string): { label: string; pid: number } | undefined {
  const match = /^\.(.+)\.([1-9][0-9]{0,9})\.[0-9a-f]{12}\.[0-9a-z]+\.tmp$/.exec(name);
  return match === null ? undefined : { label: match[1] as string, pid: Number(match[2]) };
}

/**
 * Whether a process of id `pid` may run on this machine: `kill(pid, 0)` fails with `ESRCH` only
 * when none does (`EPERM`: it runs as another user). The one test of a pid in the store (locks,
 * leftover temp files): anything but `ESRCH` counts as alive, so a doubt keeps a file.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !hasErrorCode(error, "ESRCH");
  }
}

/** Removes `path` if it exists (a plain unlink: `rmSync` walks it as a tree first). */
export function removeFile(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (error) {
    if (!hasErrorCode(error, "ENOENT")) throw error;
  }
}

/** Writes all of `data` at the current position of `fd`, looping over short writes. */
export function writeAll(fd: number, data: Uint8Array): void {
  let written = 0;
  while (written < data.length) {
    written += fs.writeSync(fd, data, written, data.length - written);
  }
}

/**
 * Creates `path` with exactly `data`, all or nothing: the bytes go to a temp file beside it, are
 * fsynced, then `link(2)`ed into place (which fails with `EEXIST` like `O_EXCL` and never shows a
 * half-written file), then the directory is fsynced. With `durable` false nothing is fsynced, and
 * with `keepOpen` the file's descriptor is returned open, for the caller to fsync and close later
 * (an import flushes its new logs in the background without opening each again).
 *
 * @throws the `EEXIST` system error when `path` exists; nothing is changed then.
 */
export function createFileExclusive(
  path: string,
  data: Uint8Array,
  durable = true,
  keepOpen = false,
): number | undefined {
  const temp = tempPathBeside(path);
  // 0600: logs hold code, outputs and prompts; the home is private like ~/.ssh.
  const fd = writeTemp(temp, data, durable, keepOpen);
  try {
    fs.linkSync(temp, path);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    throw error;
  } finally {
    removeFile(temp);
  }
  if (durable) fsyncDirectory(dirname(path));
  return fd;
}

/**
 * Creates `temp` (which must not exist) holding `data`, fsynced when `durable`. On failure (a full
 * disk) the partial file is removed: no `.tmp` is ever left behind. With `keepOpen` the
 * descriptor is returned open instead of closed.
 */
export function writeTemp(
  temp: string,
  data: Uint8Array,
  durable = true,
  keepOpen = false,
): number | undefined {
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    try {
      writeAll(fd, data);
      if (durable) fs.fsyncSync(fd);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    if (keepOpen) return fd;
    fs.closeSync(fd);
    return undefined;
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Replaces `path` with exactly `data`, all or nothing: a temp file beside it is written, fsynced
 * and renamed over it; on failure (a full disk) the temp file is removed and `path` is untouched,
 * and a disk fault is a `StorageFaultError` naming `path` ("disk full (ENOSPC) writing PATH").
 * `mode` applies to the new file, through the umask (default `0o600`, as the home's logs; exports
 * too, since they hold the same text).
 */
export function writeFileAtomically(path: string, data: Uint8Array | string, mode = 0o600): void {
  const temp = tempPathBeside(path);
  try {
    const fd = fs.openSync(temp, "wx", mode);
    try {
      try {
        writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, path);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
  } catch (error) {
    // The temp file is ours, not the caller's: an error names the file they asked for.
    const failure = error as NodeJS.ErrnoException;
    if (failure?.path === temp) {
      failure.path = path;
      failure.message = failure.message.replaceAll(temp, path);
    }
    throw toStorageFault(failure, { path }) ?? failure;
  }
}

/**
 * Lines of text as UTF-8, each followed by "\n", in one buffer: encoded straight into place (no
 * joined string, no buffer per line, no concatenated copy: a new log of many MB is written once).
 */
export function encodeLines(lines: readonly string[]): Buffer {
  let units = 0;
  for (const line of lines) units += line.length + 1;
  // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
  const buffer = Buffer.allocUnsafe(units * 3);
  let offset = 0;
  for (const line of lines) {
    offset += buffer.write(line, offset);
    buffer[offset] = 10;
    offset += 1;
  }
  return buffer.subarray(0, offset);
}

/**
 * `fs.fstatSync(fd)`, or `fs.lstatSync(path)` (`fs.statSync` with `followLinks`), for a file that
 * may not be a regular one (a FIFO, socket or device someone put in its place); `undefined` when
 * the path does not exist, unless `throwIfNoEntry`. Taken as bigint stats, which Node keeps in a buffer of their own: its
 * `realpathSync`, which every `require` uses, reads the file type of the last plain synchronous
 * stat from the buffer it shares with them, and after a FIFO's it stops resolving links, so the
 * next `require` of a package that pnpm links is loaded from inside the link and fails ("Cannot
 * find module 'bindings'"). Every synchronous stat of a file that may be a FIFO goes through here.
 */
export function fileStats(
  target: number | string,
  options: { followLinks?: boolean; throwIfNoEntry?: boolean } = {},
): fs.BigIntStats | undefined {
  if (typeof target === "number") return fs.fstatSync(target, { bigint: true });
  const stat = options.followLinks === true ? fs.statSync : fs.lstatSync;
  return stat(target, { bigint: true, throwIfNoEntry: options.throwIfNoEntry === true });
}

/**
 * `fs.mkdirSync(path, { recursive: true, mode })`, without its endless loop: Node's recursive
 * `mkdir` answers a parent that exists but refuses children with `ENOENT` (`/proc`, `/sys`, an
 * automounter's folder) by creating that parent again, forever, at full CPU (a home of
 * `/proc/x/home` hung every command). Here each missing level is made once, from the top; an
 * `ENOENT` after its parent exists is thrown. A directory already there is fine; anything else
 * in its place throws `EEXIST`, as `mkdirSync` does.
 */
export function makeDirectories(path: string, mode = 0o700): void {
  try {
    fs.mkdirSync(path, { mode });
    return;
  } catch (error) {
    if (hasErrorCode(error, "EEXIST")) {
      if (fileStats(path, { followLinks: true })?.isDirectory()) return;
      throw error;
    }
    const parent = dirname(path);
    if (!hasErrorCode(error, "ENOENT") || parent === path) throw error;
  }
  makeDirectories(dirname(path), mode);
  try {
    fs.mkdirSync(path, { mode });
  } catch (error) {
    // Made meanwhile by another process: as good as ours.
    if (!hasErrorCode(error, "EEXIST") || !fileStats(path, { followLinks: true })?.isDirectory())
      throw error;
  }
}
