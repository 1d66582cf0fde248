import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { TapedeckError } from "@tapedeck/session";

/**
 * How file tools read and write text. The local implementation uses the disk; the ACP agent
 * routes through the client's `fs/read_text_file` / `fs/write_text_file` when it advertises them,
 * so the tools see the editor's unsaved buffers.
 *
 * Paths handed to these methods are absolute and already confined to the workspace by
 * {@link resolveInWorkspace}; implementations need not check them again.
 */
export interface WorkspaceFs {
  /** The whole text of a file. Throws when it does not exist. */
  readTextFile(absolutePath: string): Promise<string>;
  /** Creates or replaces a file (parent directories are created). */
  writeTextFile(absolutePath: string, content: string): Promise<void>;
}

/** The local file system. */
export const localWorkspaceFs: WorkspaceFs = {
  readTextFile: (absolutePath) => readFile(absolutePath, "utf8"),
  async writeTextFile(absolutePath, content) {
    await mkdir(path.dirname(absolutePath), { recursive: true });
    await writeFile(absolutePath, content, "utf8");
  },
};

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

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  // `..` as a whole first segment escapes; a name that merely starts with dots ("..notes") does not.
  const escapes = relative === ".." || relative.startsWith(`..${path.sep}`);
  return relative === "" || (!escapes && !path.isAbsolute(relative));
}

async function realpathOfNearestExisting(target: string): Promise<string> {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(current);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = path.dirname(current);
      if (parent === current) return target;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves a tool's path argument against the workspace root and refuses anything that lands
 * outside it: absolute paths elsewhere, `..` escapes, and symlinks whose target is outside (the
 * check runs on the real path of the file, or of its nearest existing ancestor for a new file).
 *
 * @returns the absolute, lexically resolved path (inside `root`).
 * @throws PathOutsideWorkspaceError
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<string> {
  if (requested.includes("\0"))
    throw new PathOutsideWorkspaceError(requested, "contains a NUL byte");
  const absoluteRoot = path.resolve(root);
  const resolved = path.resolve(absoluteRoot, requested);
  if (!isInside(absoluteRoot, resolved)) {
    throw new PathOutsideWorkspaceError(
      requested,
      `resolves to ${resolved}, outside ${absoluteRoot}`,
    );
  }
  const realRoot = await realpath(absoluteRoot);
  const real = await realpathOfNearestExisting(resolved);
  if (!isInside(realRoot, real)) {
    throw new PathOutsideWorkspaceError(
      requested,
      `leads through a symlink to ${real}, outside ${realRoot}`,
    );
  }
  return resolved;
}
