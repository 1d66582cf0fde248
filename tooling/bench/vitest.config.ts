import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/bench",
    include: ["src/**/*.test.ts"],
  },
});
