import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/test-temp",
    include: ["src/**/*.test.ts"],
  },
});
