import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The binary the end-to-end tests spawn: this app's bundle, unless the person names another. */
const binary =
  process.env.TAPEDECK_BINARY ||
  path.join(path.dirname(fileURLToPath(import.meta.url)), "dist", "tapedeck.mjs");

/**
 * How tests that need the viewer start it (`startViewer` of @tapedeck/test-harness): `apps/web`'s
 * server script under tsx, as its own process. This app never imports the other one.
 */
const viewer = JSON.stringify([
  createRequire(path.join(root, "package.json")).resolve("tsx/cli"),
  path.join(root, "apps", "web", "src", "server", "main.ts"),
]);

export default defineProject({
  test: {
    name: "@tapedeck/agent-bin",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests spawn the bundled binary; build it once before any test runs…
    // …and a PostgreSQL server for the team index tests.
    // …and the viewer's page, without which the viewer some tests start refuses to start.
    globalSetup: [
      "./test/build-binary.ts",
      "./test/build-viewer.ts",
      "@tapedeck/postgres-server/global-setup",
    ],
    // @tapedeck/test-harness reads the binary's path from here; it never looks for this app.
    env: { TAPEDECK_BINARY: binary, TAPEDECK_VIEWER: viewer },
    testTimeout: 30_000,
  },
});
