/**
 * What a reading command loads (issue #12: `tapedeck sessions search` and `list` pay, on every
 * start, for each module they read and compile). The built binary runs under a module hook that
 * records every module Node loads (and, at exit, the built-ins it loaded, `require`d ones too);
 * the reading commands must load neither the agent (its tools start processes and workers), the
 * model clients nor `node:crypto` (only writers need it), and stay within a byte budget of bundle.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { eventLogBuilder } from "@tapedeck/session/testing";
import {
  homeLogs,
  type TempWorkspace,
  tapedeckBinary,
  tempWorkspace,
} from "@tapedeck/test-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: TempWorkspace;
beforeEach(async () => {
  workspace = await tempWorkspace();
  homeLogs(workspace.home).write(
    eventLogBuilder({ sessionId: "0193b6e2-7c1a-7d3e-9f00-00000000000a", cwd: workspace.cwd })
      .turn()
      .user("Find the needle in the haystack")
      .assistant("The needle is in src/hay.ts.")
      .end()
      .jsonl(),
  );
});
afterEach(async () => {
  await workspace.cleanup();
});

/**
 * Bytes of the bundle (`dist/*.mjs`) a reading command may load: ≈ 450 KB today (zod ≈ 290 KB,
 * the session, store, query and host code). The agent and the model clients alone add ≈ 100 KB.
 */
const BUNDLE_BUDGET = 500_000;

/**
 * Runs `tapedeck …args` and returns the URLs of every module it loaded, in order, then Node's
 * `process.moduleLoadList` (`NativeModule crypto`, …) at exit.
 */
function modulesLoadedBy(args: string[]): string[] {
  const log = path.join(workspace.root, "modules.log");
  const hooks = path.join(workspace.root, "hooks.mjs");
  const register = path.join(workspace.root, "register.mjs");
  writeFileSync(log, "");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}`,
  );
  writeFileSync(
    register,
    `import { appendFileSync } from "node:fs";
import { register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)});
process.on("exit", () => appendFileSync(${JSON.stringify(log)}, process.moduleLoadList.join("\\n")));`,
  );
  const result = spawnSync(process.execPath, ["--import", register, tapedeckBinary(), ...args], {
    cwd: workspace.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: workspace.root, TAPEDECK_HOME: workspace.home },
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

function bundleBytes(urls: string[]): number {
  const dist = path.dirname(tapedeckBinary());
  return urls
    .filter((url) => url.startsWith("file:"))
    .map((url) => fileURLToPath(url))
    .filter((file) => path.dirname(file) === dist)
    .reduce((sum, file) => sum + statSync(file).size, 0);
}

describe("a reading command's start-up", () => {
  for (const args of [
    ["sessions", "search", "--all", "needle"],
    ["sessions", "list", "--all"],
  ]) {
    it(`tapedeck ${args.join(" ")} loads no agent, tool or model code`, () => {
      // The first command builds the index (a writer: it may need `node:crypto`); the second
      // finds it fresh, as a person's next command does.
      modulesLoadedBy(args);
      const urls = modulesLoadedBy(args);
      // The hook saw the command's own modules (the count works)…
      expect(urls.some((url) => url.endsWith("/tapedeck.mjs"))).toBe(true);
      // …but not the agent's tools (processes, the regex worker) nor the OpenAI client.
      expect(urls).not.toContain("node:child_process");
      expect(urls).not.toContain("node:worker_threads");
      // Built-ins, also those loaded by `require` (the hook itself runs in a worker thread).
      expect(urls).toContain("NativeModule fs");
      expect(urls).not.toContain("NativeModule child_process");
      expect(urls).not.toContain("NativeModule crypto");
      expect(urls.filter((url) => /\/openai-[^/]*\.mjs$/.test(url))).toEqual([]);
      expect(bundleBytes(urls)).toBeGreaterThan(100_000);
      expect(bundleBytes(urls)).toBeLessThan(BUNDLE_BUDGET);
    });
  }
});
