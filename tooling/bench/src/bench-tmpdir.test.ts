import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { isolateBenchTmpdir } from "./bench-tmpdir";

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx/cli");

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Runs a bench-like script that makes temp folders the way the web benches do, then `ending`. */
function runBench(ending: string): { status: number | null; left: string[] } {
  const parent = mkdtempSync(path.join(os.tmpdir(), "bench-tmpdir-test-"));
  roots.push(parent);
  const script = path.join(parent, "bench.ts");
  writeFileSync(
    script,
    [
      `import { mkdtempSync, writeFileSync } from "node:fs";`,
      `import os from "node:os";`,
      `import path from "node:path";`,
      `import { isolateBenchTmpdir } from ${JSON.stringify(path.join(here, "index.ts"))};`,
      `isolateBenchTmpdir("tapedeck-bench-");`,
      // What a web bench makes: a home and a built client, by os.tmpdir() as the benches do.
      `const home = mkdtempSync(path.join(os.tmpdir(), "tapedeck-web-paged-bench-"));`,
      `writeFileSync(path.join(home, "log.jsonl"), "{}");`,
      `mkdtempSync(path.join(os.tmpdir(), "tapedeck-web-client-"));`,
      ending,
    ].join("\n"),
  );
  const runDir = path.join(parent, "tmp");
  mkdirSync(runDir);
  const result = spawnSync(process.execPath, [tsx, script], {
    env: { PATH: process.env.PATH ?? "", TMPDIR: runDir },
    encoding: "utf8",
  });
  // tsx keeps its compile cache in the temp folder it started with, on purpose.
  const left = readdirSync(runDir).filter((entry) => !/^tsx-\d+$/.test(entry));
  return { status: result.status, left };
}

describe("isolateBenchTmpdir", () => {
  it("leaves nothing in the temp folder after a bench that finishes", () => {
    const run = runBench(`console.log("done");`);
    expect(run.status).toBe(0);
    expect(run.left).toEqual([]);
  });

  it("leaves nothing after a bench that throws", () => {
    const run = runBench(`throw new Error("bench failed");`);
    expect(run.status).not.toBe(0);
    expect(run.left).toEqual([]);
  });

  it("leaves nothing after a bench interrupted with SIGINT", () => {
    const run = runBench(`process.kill(process.pid, "SIGINT"); setTimeout(() => {}, 10_000);`);
    expect(run.status).toBe(130);
    expect(run.left).toEqual([]);
  });

  it("points TMPDIR at its folder, so what the bench spawns writes there too", () => {
    const listeners: Array<() => void> = [];
    const env: NodeJS.ProcessEnv = {};
    const dir = isolateBenchTmpdir("tapedeck-bench-unit-", {
      env,
      once: (event: string, listener: () => void) => {
        if (event === "exit") listeners.push(listener);
      },
      exit: () => {
        throw new Error("not expected");
      },
    });
    expect(env.TMPDIR).toBe(dir);
    expect(existsSync(dir)).toBe(true);
    for (const listener of listeners) listener();
    expect(existsSync(dir)).toBe(false);
  });
});
