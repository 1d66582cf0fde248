import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withRunTmpdir } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/server/main.ts");
const tsx = createRequire(import.meta.url).resolve("tsx/cli");

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Starts the server script; one that is still running after 15 s is killed (code null). */
function start(
  env: Record<string, string>,
  cwd = os.tmpdir(),
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsx, main], {
      cwd,
      env: withRunTmpdir({ PATH: process.env.PATH ?? "", ...env }),
      stdio: ["ignore", "ignore", "pipe"],
      // Its own process group, so a timeout kills tsx's child node process too.
      detached: true,
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, 15_000);
    child.on("exit", () => clearTimeout(timer));
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("pnpm start (src/server/main.ts)", () => {
  it("a TAPEDECK_HOME that is a file is refused in one sentence, without a stack trace", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tapedeck-web-start-"));
    dirs.push(dir);
    const home = path.join(dir, "home-is-a-file");
    await writeFile(home, "");
    const result = await start({ TAPEDECK_HOME: home, PORT: "0" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Cannot use ${home} as TAPEDECK_HOME (it is not a directory): set TAPEDECK_HOME to a directory Tapedeck may write.\n`,
    );
  });

  it("a relative TAPEDECK_HOME resolves against the directory pnpm was called from (INIT_CWD)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tapedeck-web-start-"));
    dirs.push(dir);
    await writeFile(path.join(dir, "relative-home"), "");
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), "tapedeck-web-start-cwd-"));
    dirs.push(elsewhere);
    // A file, so the server stops right after resolving the path and names it.
    const result = await start(
      { TAPEDECK_HOME: "relative-home", INIT_CWD: dir, PORT: "0" },
      elsewhere,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Cannot use ${path.join(dir, "relative-home")} as TAPEDECK_HOME`,
    );
  });
});
