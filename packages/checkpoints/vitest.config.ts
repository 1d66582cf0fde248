import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/checkpoints", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
