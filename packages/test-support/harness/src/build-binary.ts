import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { agentBinDirectory, TAPEDECK_BINARY_ENV } from "./binary";

/** Set in the vitest main process once the bundle is built, so a second project skips it. */
const BUILT_MARK = "TAPEDECK_TEST_BINARY_BUILT";

/**
 * vitest `globalSetup` (`@tapedeck/test-harness/build-binary`): bundles the real binary
 * (`apps/agent-bin`, `tsup`) so that a fresh clone's `pnpm test` can spawn it. Every project whose
 * tests spawn the binary lists it; vitest runs the global setups one after another in its main
 * process before any test, and the first one builds for all. Nothing is built when
 * `$TAPEDECK_BINARY` names a binary to test.
 */
export default function setup(): void {
  if (process.env[BUILT_MARK] === "1" || process.env[TAPEDECK_BINARY_ENV]) return;
  const directory = agentBinDirectory();
  const tsup = createRequire(path.join(directory, "package.json")).resolve(
    "tsup/dist/cli-default.js",
  );
  execFileSync(process.execPath, [tsup], {
    cwd: directory,
    stdio: ["ignore", "ignore", "inherit"],
  });
  process.env[BUILT_MARK] = "1";
}
