import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";
import { type TempWorkspace, tempWorkspace } from "./temp-workspace";

/**
 * A new empty folder under the OS temp directory (real path), removed when the current test
 * finishes, whether it passed or failed. Call it inside a test or a `beforeEach`.
 */
export function testTempDir(prefix = "tapedeck-test-"): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  // Retries: an import's store makes spare log files on the thread pool and a late one can land
  // while the folder is being removed (ENOTEMPTY); once the folder is gone the spare's creation
  // fails quietly. On a loaded machine the thread pool can hold a spare for more than a second:
  // up to 10 retries, 0.2 s longer each (11 s at most). The run's temp guard still fails on
  // anything left behind.
  onTestFinished(() => removeNaming(dir));
  return dir;
}

/**
 * A {@link tempWorkspace} removed when the current test finishes, whether it passed or failed.
 * Call it inside a test or a `beforeEach`.
 */
export async function testWorkspace(prefix?: string): Promise<TempWorkspace> {
  const workspace = await tempWorkspace(prefix);
  onTestFinished(() => workspace.cleanup());
  return workspace;
}

/** Removes `dir`; when it cannot, the error names what is still in it (what kept arriving). */
function removeNaming(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (error) {
    let left: string[] = [];
    try {
      left = readdirSync(dir, { recursive: true }).map(String).slice(0, 20);
    } catch {}
    throw new Error(`could not remove ${dir}; still in it: ${left.join(", ") || "nothing"}`, {
      cause: error,
    });
  }
}
