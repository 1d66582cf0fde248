import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/importers", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
