import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** vitest globalSetup: bundles `dist/tapedeck.mjs` so a fresh clone's `pnpm test` can spawn it. */
export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  execFileSync(process.execPath, [path.join(root, "node_modules/tsup/dist/cli-default.js")], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
