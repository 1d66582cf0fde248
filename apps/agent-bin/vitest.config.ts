import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

/** The binary the end-to-end tests spawn: this app's bundle, unless the person names another. */
const binary =
  process.env.TAPEDECK_BINARY ||
  path.join(path.dirname(fileURLToPath(import.meta.url)), "dist", "tapedeck.mjs");

export default defineProject({
  test: {
    name: "@tapedeck/agent-bin",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests spawn the bundled binary; build it once before any test runs…
    // …and a PostgreSQL server for the team index tests.
    globalSetup: ["./test/build-binary.ts", "@tapedeck/postgres-server/global-setup"],
    // @tapedeck/test-harness reads the binary's path from here; it never looks for this app.
    env: { TAPEDECK_BINARY: binary },
    testTimeout: 30_000,
  },
});
