import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/html-export", include: ["src/**/*.test.ts"] },
});
