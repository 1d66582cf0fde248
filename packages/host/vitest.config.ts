import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/host",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // A real PostgreSQL server for the team index tests.
    globalSetup: ["@tapedeck/postgres-server/global-setup"],
  },
});
