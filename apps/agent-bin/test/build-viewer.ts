import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (this file is `apps/agent-bin/test/build-viewer.ts`). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * vitest `globalSetup` of this app: the viewer some tests start as a process (`startViewer`,
 * `$TAPEDECK_VIEWER`) refuses to start without its built page, so the page is built once when
 * it is missing. The tests use its API only: an older build serves them as well.
 */
export default function setup(): void {
  if (existsSync(path.join(root, "apps", "web", "dist", "client", "index.html"))) return;
  execFileSync("pnpm", ["--filter", "@tapedeck/web", "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
