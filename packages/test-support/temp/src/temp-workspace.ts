import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** A temporary folder holding a Tapedeck home and a workspace, removed by `cleanup`. */
export interface TempWorkspace {
  /** The temp folder (real path, no symbolic links): also the `HOME` of spawned binaries. */
  root: string;
  /** `<root>/home`, the `TAPEDECK_HOME` (not created: Tapedeck creates it, private). */
  home: string;
  /** `<root>/work`, an empty workspace (created). */
  cwd: string;
  /** Removes the whole folder; safe to call twice. */
  cleanup(): Promise<void>;
}

/**
 * Creates a temp folder under the OS temp directory with an empty workspace in it. The path is
 * resolved through `realpath` so that it matches what a spawned process reports as its cwd.
 */
export async function tempWorkspace(prefix = "tapedeck-test-"): Promise<TempWorkspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const home = path.join(root, "home");
  const cwd = path.join(root, "work");
  await mkdir(cwd, { recursive: true });
  return { root, home, cwd, cleanup: () => rm(root, { recursive: true, force: true }) };
}
