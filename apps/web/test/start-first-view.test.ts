/**
 * The server's first view under `pnpm start`'s loader: `tsx` run from `apps/web` compiles the
 * rows of `@tapedeck/html-export` with the automatic JSX runtime (its tsconfig includes their
 * sources), not as `React.createElement` calls that throw "React is not defined"; once drawn,
 * no timer of the render keeps the process alive.
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { withRunTmpdir } from "@tapedeck/test-harness";
import { afterAll, describe, expect, it } from "vitest";
import { seedHome } from "./seed";

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const seeded = seedHome();

afterAll(() => {
  rmSync(seeded.home, { recursive: true, force: true });
  rmSync(seeded.work, { recursive: true, force: true });
});

describe("pnpm start's first view", () => {
  it("draws a session's rows and token chart when run by tsx from apps/web", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [tsx, path.join(here, "fixtures/render-first-view.ts"), seeded.home, seeded.english],
      {
        cwd: path.join(here, ".."),
        env: withRunTmpdir({ PATH: process.env.PATH ?? "" }),
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    expect(stdout).toContain('data-testid="token-chart"');
    expect(stdout).toContain("A tiny teapot simulator.");
    // Nothing is left to keep it alive: the queries' cache timers (30 s each) were cleared.
    expect(JSON.parse(stderr.trim().split("\n").at(-1) ?? "[]")).not.toContain("Timeout");
  }, 60_000);
});
