import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/agent-bin", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
