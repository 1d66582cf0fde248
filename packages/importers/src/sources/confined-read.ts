/**
 * Reading a folder another program wrote (opencode's storage/), confined to it: ids from its
 * files never become paths that leave it (`/`, `\`, `..` refused), every file and folder is
 * checked to lie inside it once links are resolved, and only regular files are read, opened
 * without blocking (a FIFO named `msg.json` is refused at once instead of hanging the import).
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import { join, sep } from "node:path";

/** True when `id` can name a file or folder: no separator, no `..`, no NUL, not empty. */
export function isSafeId(id: string): boolean {
  return id !== "" && id !== "." && !/[/\\\0]/.test(id) && !id.includes("..");
}

/** A folder to read inside of: its real path, fixed once. */
export interface ConfinedFolder {
  /** Names in `directory` (sorted), `[]` when it is missing or lies outside. */
  list(directory: string): string[];
  /**
   * The text of `file`, or why it was not read: outside the folder, not a regular file, or
   * unreadable.
   */
  read(file: string): { text: string } | { reason: string };
}

/** Reads confined to `root` (resolved once; a missing root reads nothing). */
export function confinedFolder(root: string): ConfinedFolder {
  let real: string | undefined;
  try {
    real = realpathSync.native(root);
  } catch {
    real = undefined;
  }
  const inside = (path: string): boolean => {
    if (real === undefined) return false;
    try {
      const resolved = realpathSync.native(path);
      return resolved === real || resolved.startsWith(real.endsWith(sep) ? real : real + sep);
    } catch {
      return false;
    }
  };
  return {
    list(directory) {
      if (!inside(directory)) return [];
      try {
        return readdirSync(directory).sort();
      } catch {
        return [];
      }
    },
    read(file) {
      if (!inside(file)) return { reason: "outside the storage folder (not read)" };
      let fd: number;
      try {
        fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      } catch {
        return { reason: "unreadable" };
      }
      try {
        if (!fstatSync(fd).isFile()) return { reason: "not a regular file (not read)" };
        return { text: readFileSync(fd, "utf8") };
      } catch {
        return { reason: "unreadable" };
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** `join(parent, id)` when `id` is safe, else `undefined`. */
export function childOf(parent: string, id: string): string | undefined {
  return isSafeId(id) ? join(parent, id) : undefined;
}
