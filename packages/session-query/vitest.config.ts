import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/session-query", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
