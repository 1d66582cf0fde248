import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/web",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The browser tests build the client and drive Chromium; give them room on a shared machine.
    testTimeout: 30_000,
    // A real PostgreSQL server for the team index test.
    globalSetup: ["@tapedeck/postgres-server/global-setup"],
    hookTimeout: 120_000,
    // The browser tests poll the page; a loaded CI machine needs more than the 1 s default.
    expect: { poll: { timeout: 10_000, interval: 50 } },
  },
});
