import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/acp-snapshot",
    // Unit tests of the runner; the scenarios run against the binary in apps/agent-bin/test.
    include: ["src/**/*.test.ts"],
  },
});
