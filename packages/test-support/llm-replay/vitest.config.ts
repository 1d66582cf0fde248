import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/llm-replay", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
