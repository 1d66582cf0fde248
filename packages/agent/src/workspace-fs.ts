import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { TapedeckError } from "@tapedeck/session";

/**
 * How file tools read and write text. The local implementation uses the disk; the ACP agent
 * routes through the client's `fs/read_text_file` / `fs/write_text_file` when it advertises them,
 * so the tools see the editor's unsaved buffers.
 *
 * Paths handed to these methods are absolute and already confined to the workspace by
 * {@link resolveInWorkspace}; the local implementation checks the opened file again (no race).
 */
export interface WorkspaceFs {
  /** The whole text of a file. Throws when it does not exist. */
  readTextFile(absolutePath: string, confinement?: Confinement): Promise<string>;
  /** Creates or replaces a file (parent directories are created). */
  writeTextFile(absolutePath: string, content: string, confinement?: Confinement): Promise<void>;
}

/** Where a tool's file access must stay: checked again on the opened file by the local fs. */
export interface Confinement {
  /** Workspace root. */
  root: string;
  /** Directories of the workspace tools never touch (the Tapedeck home). */
  privateRoots?: readonly string[];
}

/** Bytes `read_file` and `edit_file` read of one file at most (a 300 MB log is not loaded). */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/** A path a tool was asked to use lies outside the workspace (directly, by `..`, or by a symlink). */
export class PathOutsideWorkspaceError extends TapedeckError {
  readonly requestedPath: string;

  constructor(requestedPath: string, reason: string) {
    super(
      "PATH_OUTSIDE_WORKSPACE",
      `Refused: ${JSON.stringify(requestedPath)} ${reason}; tools may only use paths inside the workspace.`,
    );
    this.name = "PathOutsideWorkspaceError";
    this.requestedPath = requestedPath;
  }
}

const unsafeMarker = "tapedeck.error.UnsafeFileError";
const unsafeSymbol = Symbol.for(unsafeMarker);

/**
 * A file tools must not open: a FIFO, device, socket or directory, a file with several hard
 * links (for writes), one larger than {@link MAX_READ_BYTES}, or one that moved while opened.
 */
export class UnsafeFileError extends TapedeckError {
  readonly [unsafeSymbol] = true;

  constructor(message: string) {
    super("UNSAFE_FILE", message);
    this.name = "UnsafeFileError";
  }

  static override isInstance(error: unknown): error is UnsafeFileError {
    return TapedeckError.hasMarker(error, unsafeMarker);
  }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  // `..` as a whole first segment escapes; a name that merely starts with dots ("..notes") does not.
  const escapes = relative === ".." || relative.startsWith(`..${path.sep}`);
  return relative === "" || (!escapes && !path.isAbsolute(relative));
}

const MAX_LINKS = 40;

/**
 * The real path `target` leads to, following every symbolic link on the way — dangling ones too
 * (a link to a file that does not exist yet is where a write would create it). Components that do
 * not exist are kept as they are. Throws ELOOP-like after 40 links.
 */
async function followAll(target: string): Promise<string> {
  let pending = path.resolve(target).split(path.sep).filter(Boolean);
  let current = path.parse(path.resolve(target)).root;
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift() ?? "";
    const next = path.join(current, name);
    let info: Awaited<ReturnType<typeof lstat>> | undefined;
    try {
      info = await lstat(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      // Nothing below a missing component can be a link.
      return path.join(next, ...pending);
    }
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    links += 1;
    if (links > MAX_LINKS) throw new UnsafeFileError("too many levels of symbolic links");
    const link = await readlink(next);
    const resolved = path.resolve(current, link);
    pending = [...resolved.split(path.sep).filter(Boolean), ...pending];
    current = path.parse(resolved).root;
  }
  return current;
}

/** Options of {@link resolveInWorkspace}. */
export interface ConfineOptions {
  /**
   * Directories inside the workspace that tools must never touch, reads included (the Tapedeck
   * home when it lies in the workspace: other workspaces' logs live there).
   */
  privateRoots?: readonly string[];
}

/**
 * Resolves a tool's path argument against the workspace root and refuses anything that lands
 * outside it: absolute paths elsewhere, `..` escapes, and symbolic links anywhere on the way whose
 * target is outside, dangling links included (a write would create the file at the target). A
 * refusal never names a link's target. Paths inside a private root (the home) are refused too.
 *
 * @returns the real path, every link resolved (inside `root`): what the tools then open with
 * no-follow, so a link cannot be swapped in at the last component.
 * @throws PathOutsideWorkspaceError
 */
export async function resolveInWorkspace(
  root: string,
  requested: string,
  options: ConfineOptions = {},
): Promise<string> {
  if (requested.includes("\0"))
    throw new PathOutsideWorkspaceError(requested, "contains a NUL byte");
  const absoluteRoot = path.resolve(root);
  const resolved = path.resolve(absoluteRoot, requested);
  if (!isInside(absoluteRoot, resolved)) {
    throw new PathOutsideWorkspaceError(requested, "resolves outside the workspace");
  }
  const realRoot = await realpath(absoluteRoot);
  let real: string;
  try {
    real = await followAll(resolved);
  } catch (error) {
    if (UnsafeFileError.isInstance(error)) {
      throw new PathOutsideWorkspaceError(requested, "has too many levels of symbolic links");
    }
    throw error;
  }
  if (!isInside(realRoot, real)) {
    throw new PathOutsideWorkspaceError(requested, "leads through a symlink out of the workspace");
  }
  for (const privateRoot of options.privateRoots ?? []) {
    const realPrivate = await followAll(privateRoot);
    if (isInside(realPrivate, real) || isInside(path.resolve(privateRoot), resolved)) {
      throw new PathOutsideWorkspaceError(
        requested,
        "lies in the Tapedeck home (session history is only reachable through session_query)",
      );
    }
  }
  return real;
}

/**
 * A test for "lies in one of the private roots" (as given or with links resolved), the roots
 * resolved once: the search walk asks it for every directory.
 */
export async function privatePathTest(
  privateRoots: readonly string[],
): Promise<(absolute: string) => boolean> {
  const roots = new Set<string>();
  for (const privateRoot of privateRoots) {
    roots.add(path.resolve(privateRoot));
    roots.add(await followAll(privateRoot));
  }
  return (absolute) => [...roots].some((root) => isInside(root, absolute));
}

async function isPrivatePath(absolute: string, privateRoots: readonly string[]): Promise<boolean> {
  return (await privatePathTest(privateRoots))(absolute);
}

// O_NOFOLLOW: the last component is never a link (checked before, but it may change since);
// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const writeFlags =
  constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Checks an opened file: a regular file (not a FIFO, device, socket or directory), and on Linux
 * really inside the workspace (`/proc/self/fd`), which closes the race between the check of the
 * path and the open.
 */
async function checkOpened(
  handle: FileHandle,
  absolutePath: string,
  forWrite: boolean,
  confinement: Confinement | undefined,
) {
  const info = await handle.stat();
  const name = path.basename(absolutePath);
  if (info.isDirectory()) throw new UnsafeFileError(`${name} is a directory.`);
  if (!info.isFile()) {
    throw new UnsafeFileError(
      `${name} is not a regular file (a FIFO, socket or device); tools only read and write regular files.`,
    );
  }
  if (forWrite && info.nlink > 1) {
    throw new UnsafeFileError(
      `${name} has ${info.nlink} hard links; it is not written through (the other names may lie outside the workspace).`,
    );
  }
  if (!forWrite && info.size > MAX_READ_BYTES) {
    throw new UnsafeFileError(
      `${name} is ${info.size} bytes, more than the ${MAX_READ_BYTES} file tools read; use run_command (head, sed -n) for parts of it.`,
    );
  }
  if (confinement !== undefined) {
    const opened = await realpath(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined) {
      const realRoot = await realpath(confinement.root);
      const escaped =
        !isInside(realRoot, opened) ||
        (await isPrivatePath(opened, confinement.privateRoots ?? []));
      if (escaped) throw new UnsafeFileError(`${name} changed while it was opened; refused.`);
    }
  }
  return info;
}

function openError(error: unknown, absolutePath: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") {
    return new UnsafeFileError(`${path.basename(absolutePath)} is a symbolic link; refused.`);
  }
  if (code === "ENXIO") {
    return new UnsafeFileError(
      `${path.basename(absolutePath)} is not a regular file (a FIFO, socket or device); tools only read and write regular files.`,
    );
  }
  return error;
}

/** The local file system: no-follow opens, regular files only, capped reads. */
export const localWorkspaceFs: WorkspaceFs = {
  async readTextFile(absolutePath, confinement) {
    const handle = await open(absolutePath, readFlags).catch((error: unknown) => {
      throw openError(error, absolutePath);
    });
    try {
      const info = await checkOpened(handle, absolutePath, false, confinement);
      // At most the cap, even if the file grew since the check.
      const size = Math.min(info.size, MAX_READ_BYTES);
      const buffer = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const { bytesRead } = await handle.read(buffer, read, size - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return buffer.toString("utf8", 0, read);
    } finally {
      await handle.close();
    }
  },
  async writeTextFile(absolutePath, content, confinement) {
    await mkdir(path.dirname(absolutePath), { recursive: true });
    const handle = await open(absolutePath, writeFlags, 0o644).catch((error: unknown) => {
      throw openError(error, absolutePath);
    });
    try {
      await checkOpened(handle, absolutePath, true, confinement);
      await handle.truncate(0);
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
  },
};
