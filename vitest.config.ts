import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Every run gets its own TMPDIR and fails when a test leaves a temp folder in it (the guard
    // of @tapedeck/test-temp; a path, so the root needs no dependency on a workspace package).
    globalSetup: ["./packages/test-support/temp/src/global-setup.ts"],
    projects: [
      "packages/*/vitest.config.ts",
      "packages/test-support/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      "tooling/*/vitest.config.ts",
    ],
  },
});
