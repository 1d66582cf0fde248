import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/test-harness",
    include: ["src/**/*.test.ts"],
  },
});
