import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const preload = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../__fixtures__/count-reads.cjs",
);

/** What a spawned binary opened and listed under one folder (see {@link readLog}). */
export interface ReadLog {
  /** Extra environment for the spawned binary: the preload that records. */
  env: Record<string, string>;
  /** Empties the log (before the run to record). */
  clear(): void;
  /** Files opened or read under the folder since the last `clear`, in order. */
  opened(): string[];
  /** Folders listed under the folder since the last `clear`, in order. */
  listed(): string[];
}

/**
 * Records, in `log` (a file outside `folder`), every file a spawned binary opens or reads under
 * `folder` and every folder it lists there, through a preload in `NODE_OPTIONS` that wraps
 * `node:fs` (its ES module bindings too): how a test over the real binary says "nothing was read".
 */
export function readLog(folder: string, log: string): ReadLog {
  writeFileSync(log, "");
  const lines = (kind: string) =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.startsWith(`${kind} `))
      .map((line) => line.slice(kind.length + 1));
  return {
    env: {
      NODE_OPTIONS: `--require ${preload}`,
      TAPEDECK_TEST_READS_DIR: path.resolve(folder),
      TAPEDECK_TEST_READS_LOG: log,
    },
    clear: () => writeFileSync(log, ""),
    opened: () => lines("open"),
    listed: () => lines("list"),
  };
}
