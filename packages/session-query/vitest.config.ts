import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/session-query",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // A real PostgreSQL server for the team index tests (fails, naming the package, when missing).
    globalSetup: ["@tapedeck/postgres-server/global-setup"],
  },
});
