import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/agent-bin",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests spawn the bundled binary; build it once before any test runs.
    globalSetup: ["./test/build-binary.ts"],
    testTimeout: 30_000,
  },
});
