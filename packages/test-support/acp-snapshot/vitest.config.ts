import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/acp-snapshot", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
