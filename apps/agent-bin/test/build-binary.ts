import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** This app's folder (the one `tsup.config.ts` is in). */
const appDirectory = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Set in the vitest main process once the bundle is built, so a second run in it skips it. */
const BUILT_MARK = "TAPEDECK_TEST_BINARY_BUILT";

/**
 * vitest `globalSetup` of this app: bundles the real binary (`tsup`) so that a fresh clone's
 * `pnpm test` can spawn it; `vitest.config.ts` hands its path to the tests as `$TAPEDECK_BINARY`
 * (read by `@tapedeck/test-harness`). Nothing is built when `$TAPEDECK_BINARY` already names a
 * binary to test (a packed release).
 */
export default function setup(): void {
  if (process.env[BUILT_MARK] === "1" || process.env.TAPEDECK_BINARY) return;
  const tsup = createRequire(path.join(appDirectory, "package.json")).resolve(
    "tsup/dist/cli-default.js",
  );
  execFileSync(process.execPath, [tsup], {
    cwd: appDirectory,
    stdio: ["ignore", "ignore", "inherit"],
  });
  process.env[BUILT_MARK] = "1";
}
