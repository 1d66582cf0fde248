import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/acp-snapshot",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Scenarios spawn the real binary; bundle it once before any test runs.
    globalSetup: ["@tapedeck/test-harness/build-binary"],
    testTimeout: 60_000,
  },
});
