import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/agent", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
