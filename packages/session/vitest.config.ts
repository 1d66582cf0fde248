import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/session", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
