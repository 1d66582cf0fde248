import { spawn } from "node:child_process";
import { CheckpointError } from "./errors";
import { type GitPlace, gitEnvironment, runGit, safeConfigArgs } from "./git";

/**
 * Reads many blobs with one `git cat-file --batch`. Returns them by id; throws
 * `CHECKPOINT_NOT_FOUND` naming the first id the store (with what it borrows) lacks.
 */
export async function readBlobs(
  place: GitPlace,
  ids: readonly string[],
): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const { stdout } = await runGit(place, ["cat-file", "--batch"], {
    input: `${unique.join("\n")}\n`,
  });
  let offset = 0;
  for (const id of unique) {
    const end = stdout.indexOf(10, offset);
    const header = stdout.subarray(offset, end).toString("utf8");
    const [, type, size] = header.split(" ");
    if (type === undefined || type === "missing" || size === undefined) {
      throw new CheckpointError(
        "CHECKPOINT_NOT_FOUND",
        `the object ${id.slice(0, 12)} is missing from the checkpoint store (the repository it borrowed from may have been pruned)`,
      );
    }
    const length = Number(size);
    blobs.set(id, Buffer.from(stdout.subarray(end + 1, end + 1 + length)));
    offset = end + 1 + length + 1;
  }
  return blobs;
}

/**
 * One `git cat-file --batch` kept open for several rounds of reads (each round's ids known only
 * after the previous one's answer: a tree's folders, a depth at a time). `close()` ends it.
 */
export function openObjectReader(place: GitPlace): {
  read(ids: readonly string[]): Promise<Map<string, Buffer>>;
  close(): void;
} {
  const child = spawn("git", [...safeConfigArgs(), "cat-file", "--batch"], {
    cwd: place.workTree,
    env: gitEnvironment(place),
    stdio: ["pipe", "pipe", "ignore"],
  });
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  let failed: Error | undefined;
  child.on("error", (error) => {
    failed = new CheckpointError("GIT_FAILED", `git cat-file could not start: ${error.message}`);
    waiting?.();
  });
  child.on("close", () => {
    failed ??= new CheckpointError("GIT_FAILED", "git cat-file ended early");
    waiting?.();
  });
  child.stdin.on("error", () => undefined);
  child.stdout.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    waiting?.();
  });
  /** The next answer, once it is whole: its id's content, or undefined when missing. */
  const next = async (id: string): Promise<Buffer> => {
    for (;;) {
      const end = buffered.indexOf(10);
      if (end >= 0) {
        const [, type, size] = buffered.subarray(0, end).toString("utf8").split(" ");
        if (type === undefined || type === "missing" || size === undefined) {
          buffered = buffered.subarray(end + 1);
          throw new CheckpointError(
            "CHECKPOINT_NOT_FOUND",
            `the object ${id.slice(0, 12)} is missing from the checkpoint store`,
          );
        }
        const length = Number(size);
        if (buffered.length >= end + 1 + length + 1) {
          const body = Buffer.from(buffered.subarray(end + 1, end + 1 + length));
          buffered = buffered.subarray(end + 1 + length + 1);
          return body;
        }
      }
      if (failed !== undefined) throw failed;
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
      waiting = undefined;
    }
  };
  return {
    async read(ids) {
      const unique = [...new Set(ids)];
      const objects = new Map<string, Buffer>();
      if (unique.length === 0) return objects;
      child.stdin.write(`${unique.join("\n")}\n`);
      for (const id of unique) objects.set(id, await next(id));
      return objects;
    },
    close() {
      child.stdin.end();
    },
  };
}
