import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { agentBinDir } from "./binary";

/**
 * vitest globalSetup: bundles the real `tapedeck` binary (apps/agent-bin) so a fresh clone's
 * `pnpm test` can spawn it. vitest runs every project's globalSetup one after another before any
 * test, so this never races agent-bin's own build.
 */
export default function setup(): void {
  const binPackage = agentBinDir;
  const tsup = createRequire(path.join(binPackage, "package.json")).resolve(
    "tsup/dist/cli-default.js",
  );
  execFileSync(process.execPath, [tsup], {
    cwd: binPackage,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
