import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      "packages/test-support/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      "tooling/*/vitest.config.ts",
    ],
  },
});
