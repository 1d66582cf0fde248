import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/agent-bin",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests spawn the bundled binary; build it once before any test runs.
    // …and a PostgreSQL server for the team index tests.
    globalSetup: ["@tapedeck/test-harness/build-binary", "@tapedeck/postgres-server/global-setup"],
    testTimeout: 30_000,
  },
});
