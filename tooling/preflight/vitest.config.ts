import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@tapedeck/preflight", include: ["*.test.ts"] },
});
