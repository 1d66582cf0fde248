/**
 * What a reading command loads (issue #12: `tapedeck sessions search` and `list` pay, on every
 * start, for each module they read and compile). The built binary runs under a module hook that
 * records every module Node loads (and, at exit, the built-ins it loaded, `require`d ones too);
 * the reading commands must load neither the agent (its tools start processes and workers), the
 * model clients nor `node:crypto` (only writers need it), and stay within a byte budget of bundle.
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";
import {
  homeLogs,
  type TempWorkspace,
  tapedeckBinary,
  tempWorkspace,
} from "@tapedeck/test-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMPILE_CACHE_CALL, distFiles, moduleLog } from "./module-log";

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
 * Bytes of the bundle (`dist/*.mjs`) a reading command may load: ≈ 537 KB today (zod ≈ 293 KB,
 * the session, store, query and host code). It was ≈ 496 KB before wave 3 added what a list
 * needs: the index's invariant check of appended bytes (≈ 7 KB), compressed cold logs and blob
 * references in the store (≈ 12 KB), sub-agent links; then (measured: 523.7 KB before, 527.6 KB
 * after) the store's blob fsyncs at the turn's end and the unfinished-turn blob rule (≈ 4 KB),
 * then streamed cold reads and a kept-tail writer's asynchronous loadSession (≈ 9 KB), then delta
 * blobs (measured: 540.0 KB before, 546.2 KB after: reading the delta format and `compact`'s
 * planner, which the store's chunk holds), then the plain segment beside a cold log (measured:
 * 552.5 KB after: its readers, the writer's segment, compact's fold and its leftovers' reclaim,
 * all in the store's chunk), then the blob sweep's set-aside and a writer's staged blob files
 * (measured: 558.2 KB after). The store is one chunk with the reading commands' code. The agent and the model clients alone add
 * ≈ 100 KB, so the budget still catches them; the time this costs is the `sessions list` row of
 * the speed bench.
 */
const BUNDLE_BUDGET = 562_000;

/**
 * Runs `tapedeck …args` and returns the URLs of every module it loaded, in order, then Node's
 * `process.moduleLoadList` (`NativeModule crypto`, …) at exit.
 */
function modulesLoadedBy(args: string[], binary = tapedeckBinary()): string[] {
  const log = moduleLog(workspace.root);
  const result = spawnSync(process.execPath, [log.flag, binary, ...args], {
    cwd: workspace.cwd,
    env: binaryEnv(),
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return log.read();
}

/** The environment the binary runs in: the test's home, its own temp directory. */
function binaryEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: workspace.root,
    TAPEDECK_HOME: workspace.home,
    TMPDIR: workspace.root,
  };
}

/** The executable (`bin`): the CommonJS launcher in front of the ES module CLI. */
const launcher = () => path.join(path.dirname(tapedeckBinary()), "tapedeck.cjs");

function bundleBytes(urls: string[]): number {
  return distFiles(urls).reduce((sum, file) => sum + statSync(file).size, 0);
}

/** A second session's log, written after the index was built (the index is then stale). */
function writeSecondLog(): void {
  homeLogs(workspace.home).write(
    eventLogBuilder({ sessionId: "0193b6e2-7c1a-7d3e-9f00-00000000000b", cwd: workspace.cwd })
      .turn()
      .user("A second haystack with a pin")
      .end()
      .jsonl(),
  );
}

/**
 * Bytes of `fresh-search.cjs`, the bundle `sessions search` runs on a fresh index (≈ 120 KB: the
 * index's query path, the journal reader, `zod/mini`'s checks, better-sqlite3's JavaScript). Zod's
 * classic API or its whole core would add ≈ 215–290 KB. 150.7 KB with a cold log's segment joined
 * by the snippet reader and the folder watch (≈ 1 KB: `SegmentedLog`, its name's parser).
 */
const FRESH_SEARCH_BUDGET = 152_000;

/** A file of the bundle holding zod's classic API (its `ZodType`'s `superRefine` method). */
function holdsZodClassic(file: string): boolean {
  return /superRefine/.test(readFileSync(file, "utf8"));
}

/** The V8 code caches the binary keeps in the test's temp directory. */
function codeCaches(): string[] {
  const folder = readdirSync(workspace.root).find((name) =>
    name.startsWith("tapedeck-code-cache-"),
  );
  if (folder === undefined) return [];
  return readdirSync(path.join(workspace.root, folder)).map((name) =>
    path.join(workspace.root, folder, name),
  );
}

describe("tapedeck sessions search on a fresh index", () => {
  it("runs its own bundle only: no split chunk of the sessions command, no zod classic", () => {
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    const urls = modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    const dist = path.dirname(tapedeckBinary());
    const modules = distFiles(urls);
    // The entry and its two small chunks: the search bundle is read by the entry itself…
    expect(modules.some((file) => file.endsWith("/tapedeck.mjs"))).toBe(true);
    expect(
      modules.filter((file) => /(sessions-command|search|query)-[A-Z0-9]+\.mjs$/.test(file)),
    ).toEqual([]);
    expect(bundleBytes(urls)).toBeLessThan(20_000);
    // …and that bundle holds no zod classic (the check works: the split bundle has it).
    const bundle = path.join(dist, "fresh-search.cjs");
    expect(holdsZodClassic(bundle)).toBe(false);
    expect(
      readdirSync(dist).some(
        (name) => name.endsWith(".mjs") && holdsZodClassic(path.join(dist, name)),
      ),
    ).toBe(true);
    expect(statSync(bundle).size).toBeGreaterThan(20_000);
    expect(statSync(bundle).size).toBeLessThan(FRESH_SEARCH_BUDGET);
  });

  it("writes its code cache once and then uses it (V8 accepts it: it is not written again)", () => {
    // The first run builds the index (and runs the bundle, which hands it to the full command).
    expect(codeCaches()).toEqual([]);
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    const [cache, ...others] = codeCaches();
    expect(others).toEqual([]);
    expect(cache).toMatch(/fresh-search\.cjs-v\d+.*\.v8$/);
    const written = statSync(cache as string).mtimeMs;
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    expect(statSync(cache as string).mtimeMs).toBe(written);
  });

  it("removes the caches this Node wrote for earlier builds of the bundle, not other Nodes' ones", () => {
    const folder = path.join(workspace.root, `tapedeck-code-cache-${process.getuid?.() ?? "user"}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const earlierBuild = `fresh-search.cjs-${process.version}-${process.arch}-1-1.v8`;
    const otherNode = `fresh-search.cjs-v0.0.0-${process.arch}-1-1.v8`;
    for (const name of [earlierBuild, otherNode]) writeFileSync(path.join(folder, name), "");
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    const names = readdirSync(folder);
    expect(names).not.toContain(earlierBuild);
    expect(names).toContain(otherNode);
    expect(
      names.filter((name) => name.startsWith(`fresh-search.cjs-${process.version}`)),
    ).toHaveLength(1);
  });

  it("writes no code cache through a link planted under the cache folder's name", () => {
    const target = path.join(workspace.root, "elsewhere");
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(
      target,
      path.join(workspace.root, `tapedeck-code-cache-${process.getuid?.() ?? "user"}`),
    );
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    expect(readdirSync(target)).toEqual([]);
  });

  it("leaves a stale index to the full command, which syncs it", () => {
    modulesLoadedBy(["sessions", "search", "--all", "needle"]);
    writeSecondLog();
    const urls = modulesLoadedBy(["sessions", "search", "--all", "pin"]);
    expect(urls.some((url) => /\/sessions-command-[A-Z0-9]+\.mjs$/.test(url))).toBe(true);
    const again = modulesLoadedBy(["sessions", "search", "--all", "pin"]);
    expect(again.some((url) => /\/sessions-command-[A-Z0-9]+\.mjs$/.test(url))).toBe(false);
  });
});

describe("the tapedeck executable (tapedeck.cjs)", () => {
  const search = (word: string) =>
    spawnSync(process.execPath, [launcher(), "sessions", "search", "--all", word], {
      cwd: workspace.cwd,
      env: binaryEnv(),
      encoding: "utf8",
    });

  it("answers a search on a fresh index without loading any ES module of the CLI", () => {
    modulesLoadedBy(["sessions", "search", "--all", "needle"], launcher());
    const urls = modulesLoadedBy(["sessions", "search", "--all", "needle"], launcher());
    const loaded = distFiles(urls);
    // The hook sees the launcher itself (the count works), and nothing of the ES module CLI.
    expect(loaded.some((file) => file.endsWith("/tapedeck.cjs"))).toBe(true);
    expect(loaded.filter((file) => file.endsWith(".mjs"))).toEqual([]);
    const result = search("needle");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("[needle]");
  });

  it("survives a damaged code cache: a start that dies reading it leaves the next one without it", () => {
    expect(search("needle").status).toBe(0);
    expect(search("needle").status).toBe(0);
    const [cache] = codeCaches();
    const bytes = readFileSync(cache as string);
    // Its second half lost (a crash before the data reached the disk): V8 checks no checksum in
    // a release build, and its deserializer stops the process (SIGSEGV here).
    bytes.fill(0, bytes.length >> 1);
    writeFileSync(cache as string, bytes);
    expect(search("needle").signal).not.toBeNull();
    const after = search("needle");
    expect(after.stderr).toBe("");
    expect(after.status).toBe(0);
    expect(after.stdout).toContain("[needle]");
  });

  it("hands a stale index to the full CLI, which syncs it and answers; other commands too", () => {
    expect(search("needle").status).toBe(0);
    writeSecondLog();
    const urls = modulesLoadedBy(["sessions", "search", "--all", "pin"], launcher());
    expect(urls.some((url) => url.endsWith("/tapedeck.mjs"))).toBe(true);
    expect(urls.some((url) => /\/sessions-command-[A-Z0-9]+\.mjs$/.test(url))).toBe(true);
    const result = search("pin");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("[pin]");
    const version = spawnSync(process.execPath, [launcher(), "--version"], {
      env: binaryEnv(),
      encoding: "utf8",
    });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe("a reading command's start-up", () => {
  for (const { args, stale } of [
    // A search on a stale index: the full command syncs the index, then searches.
    { args: ["sessions", "search", "--all", "needle"], stale: true },
    { args: ["sessions", "list", "--all"], stale: false },
  ]) {
    it(`tapedeck ${args.join(" ")}${stale ? " (stale index)" : ""} loads no agent, tool or model code`, () => {
      // The first command builds the index (a writer: it may need `node:crypto`); the second
      // finds it fresh, as a person's next command does (or stale, after a new log).
      modulesLoadedBy(args);
      if (stale) writeSecondLog();
      const urls = modulesLoadedBy(args);
      // The hook saw the command's own modules (the count works)…
      expect(urls.some((url) => url.endsWith("/tapedeck.mjs"))).toBe(true);
      expect(urls.some((url) => /\/sessions-command-[A-Z0-9]+\.mjs$/.test(url))).toBe(true);
      // …but not the agent's tools (processes, the regex worker) nor the OpenAI client.
      expect(urls).not.toContain("node:child_process");
      expect(urls).not.toContain("node:worker_threads");
      // Built-ins, also those loaded by `require` (the hook itself runs in a worker thread).
      expect(urls).toContain("NativeModule fs");
      expect(urls).not.toContain("NativeModule child_process");
      expect(urls).not.toContain("NativeModule crypto");
      expect(urls.filter((url) => /\/openai-[^/]*\.mjs$/.test(url))).toEqual([]);
      expect(bundleBytes(urls)).toBeGreaterThan(100_000);
      // A stale search also reads the fresh-search bundle it tried first.
      expect(bundleBytes(urls)).toBeLessThan(BUNDLE_BUDGET + (stale ? FRESH_SEARCH_BUDGET : 0));
    });
  }
});

describe("Node's compile cache", () => {
  for (const [entry, binary] of [
    ["tapedeck.mjs", () => tapedeckBinary()],
    ["tapedeck.cjs", launcher],
  ] as const) {
    it(`${entry} turns it on before a command's code loads (Node 22+ has it; a stand-in here)`, () => {
      const urls = modulesLoadedBy(["sessions", "list", "--all"], binary());
      const call = urls.indexOf(COMPILE_CACHE_CALL);
      const command = urls.findIndex((url) => /\/sessions-command-[A-Z0-9]+\.mjs$/.test(url));
      expect(command).toBeGreaterThan(0);
      expect(call).toBeGreaterThanOrEqual(0);
      expect(call).toBeLessThan(command);
    });
  }
});
