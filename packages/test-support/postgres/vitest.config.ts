import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@tapedeck/postgres-server",
    include: ["src/**/*.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
  },
});
