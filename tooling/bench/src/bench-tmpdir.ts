import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** What {@link isolateBenchTmpdir} needs of the process (the real one, or a test's stand-in). */
export interface BenchProcess {
  env: NodeJS.ProcessEnv;
  once(event: "exit", listener: () => void): unknown;
  once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  exit(code?: number): never;
}

/**
 * Gives this bench run a temp folder of its own and points `TMPDIR` at it, so every temp folder
 * the bench and what it starts make (homes, the built web client, Chromium's profile and scratch
 * files, tsx's cache) is inside it; the folder is removed when the process exits, whether the
 * bench finished, threw or was interrupted (SIGINT, SIGTERM). Call it first, before anything asks
 * `os.tmpdir()`. Returns the folder.
 */
export function isolateBenchTmpdir(prefix: string, proc: BenchProcess = process): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  proc.env.TMPDIR = dir;
  const remove = () => rmSync(dir, { recursive: true, force: true });
  proc.once("exit", remove);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    proc.once(signal, () => {
      remove();
      proc.exit(130);
    });
  }
  return dir;
}
