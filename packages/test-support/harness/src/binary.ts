import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Environment variable naming a tapedeck binary to test instead of the workspace's build. */
export const TAPEDECK_BINARY_ENV = "TAPEDECK_BINARY";

/** The repository root: the nearest folder above this package holding `pnpm-workspace.yaml`. */
export function repositoryRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(directory, "pnpm-workspace.yaml"))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error("test-harness: no pnpm-workspace.yaml above it");
    directory = parent;
  }
  return directory;
}

/**
 * The tapedeck binary the end-to-end tests spawn: `$TAPEDECK_BINARY`. The project whose tests
 * spawn it declares where it is: `apps/agent-bin`'s vitest config sets the variable to its own
 * bundle (and builds it first); a person testing a packed release sets it to that build. This
 * package never finds or builds an app by path.
 */
export function tapedeckBinary(): string {
  const configured = process.env[TAPEDECK_BINARY_ENV];
  if (configured === undefined || configured === "") {
    throw new Error(
      `test-harness: $${TAPEDECK_BINARY_ENV} is not set; the vitest config of the project whose tests spawn tapedeck names the binary (see apps/agent-bin/vitest.config.ts).`,
    );
  }
  return path.resolve(configured);
}

/**
 * The executable users run (`tapedeck.cjs`, the package's `bin`: a CommonJS launcher in front of
 * the ES module CLI), next to {@link tapedeckBinary}.
 */
export function tapedeckLauncher(): string {
  return path.join(path.dirname(tapedeckBinary()), "tapedeck.cjs");
}

/** Which Node.js runs which tapedeck binary (CLI runs and ACP spawns alike). */
export interface BinaryLaunch {
  /** The Node.js executable (default: the one running the tests, `process.execPath`). */
  node?: string;
  /** The binary (default: {@link tapedeckBinary}; e.g. {@link tapedeckLauncher} instead). */
  binary?: string;
}

/** `[node, binary]`: the command an editor spawns (add `acp`) or a person types (add `run …`). */
export function tapedeckCommand(): [string, string] {
  return [process.execPath, tapedeckBinary()];
}
