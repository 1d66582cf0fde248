import { accessSync, constants } from "node:fs";
import path from "node:path";
import { StorageFaultError } from "@tapedeck/session/core";

/**
 * The read-only fault of the Tapedeck `home` when this process cannot write it (a read-only
 * mount: `EROFS`; no write permission: `EACCES`/`EPERM`), else `undefined`. A home that does not
 * exist yet is judged by its nearest existing parent, where it would be created. Writes nothing.
 *
 * Commands that must write (run, index, import, ACP prompts) refuse up front with its sentence,
 * "the Tapedeck home PATH is read-only"; commands that only read go on without the index.
 */
export function homeReadOnly(home: string): StorageFaultError | undefined {
  let directory = path.resolve(home);
  for (;;) {
    try {
      accessSync(directory, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        const parent = path.dirname(directory);
        if (parent === directory) return undefined;
        directory = parent;
        continue;
      }
      if (code === "EROFS" || code === "EACCES" || code === "EPERM") {
        return new StorageFaultError(
          { kind: "read-only", path: path.resolve(home), systemCode: code },
          { cause: error },
        );
      }
      return undefined;
    }
  }
}

/** @throws StorageFaultError (`read-only`) when {@link homeReadOnly} finds the home read-only. */
export function assertHomeWritable(home: string): void {
  const fault = homeReadOnly(home);
  if (fault !== undefined) throw fault;
}
