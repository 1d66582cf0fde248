import { accessSync, constants } from "node:fs";
import path from "node:path";
import { StorageFaultError } from "@tapedeck/session/core";
import { makeDirectories } from "@tapedeck/session-store/folder";

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

/**
 * Refuses up front a home a command that must write cannot use, and creates it when missing: a
 * home that cannot be created (a file in its path, a parent that refuses children) fails here
 * with the system error naming the folder, not once per file an import then could not write.
 *
 * @throws StorageFaultError (`read-only`) when {@link homeReadOnly} finds the home read-only
 * @throws the file-system error (`ENOENT`, `ENOTDIR`, `EEXIST`…) when the home cannot be created
 */
export function assertHomeWritable(home: string): void {
  const fault = homeReadOnly(home);
  if (fault !== undefined) throw fault;
  makeDirectories(home);
}
