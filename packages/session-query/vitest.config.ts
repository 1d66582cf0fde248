import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/session-query",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // A real PostgreSQL server for the team index tests (fails, naming the package, when missing).
    globalSetup: ["@tapedeck/postgres-server/global-setup"],
    // The PostgreSQL runs of the conformance suite make a server round trip per log written
    // (205 of them in "caps limit at 200"): on a loaded CI machine that passes 5 s.
    testTimeout: 20_000,
  },
});
