import { mkdtempSync, realpathSync, rmSync } from "node:fs";
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
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
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
