/**
 * The built executable under the Node.js versions users run, 22 and 24 (the workspace and its
 * other tests run on Node 20): the official builds from `@tapedeck/node-versions`, linux-x64 only.
 * Each test spawns `tapedeck.cjs` (the package's `bin`) under that Node: the start paths that
 * branch on the Node version (Node's compile cache, the V8 code cache keyed by `process.version`,
 * the import's worker threads) and what a user sees when better-sqlite3, built for the Node.js
 * that installed it, cannot load.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AGENT_VERSION } from "@tapedeck/host/version";
import type { ScriptedLog } from "@tapedeck/llm-replay";
import { type NodeRelease, nodeReleases, nodeReleasesUnavailable } from "@tapedeck/node-versions";
import {
  type CliContext,
  type CliResult,
  cliContext,
  repositoryRoot,
  runCli,
  spawnAcp,
  tapedeckBinary,
  tapedeckLauncher,
  testTempDir,
  writeFileScript,
} from "@tapedeck/test-harness";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * A temp home run by `release` through `tapedeck.cjs` (against a model server replaying
 * `recording`, if given), with Node's and the binary's caches in a temp folder of its own.
 */
async function underNode(release: NodeRelease, recording?: ScriptedLog) {
  const tmp = testTempDir(`tapedeck-node${release.major}-`);
  const compileCache = path.join(tmp, "node-compile-cache");
  const launch = { node: release.executable, binary: tapedeckLauncher() };
  const options = { env: { extra: { TMPDIR: tmp, NODE_COMPILE_CACHE: compileCache } }, launch };
  const context: CliContext =
    recording === undefined
      ? await cliContext(undefined, options)
      : await cliContext(recording, options);
  /** `tapedeck …args` with Node's compile cache log (`NODE_DEBUG_NATIVE`) on stderr. */
  const logged = (args: string[], binary = launch.binary) =>
    runCli(args, {
      cwd: context.workspace.cwd,
      env: { ...context.env, NODE_DEBUG_NATIVE: "COMPILE_CACHE" },
      node: release.executable,
      binary,
    });
  return { ...context, tmp, compileCache, launch, logged };
}

/** The files whose compiled code Node took from its compile cache, from its debug log. */
function acceptedFromCache(stderr: string): string[] {
  // Node 22: "cache for <url> was accepted"; Node 24: "V8 code cache for ESM <url> was accepted".
  return [...stderr.matchAll(/cache for (?:ESM |CommonJS )?(\S+) was accepted/g)].map(
    (match) => match[1] as string,
  );
}

/** The command's output without Node's compile cache log. */
function withoutCacheLog(result: CliResult): CliResult {
  const stderr = result.stderr.replace(/^\[compile cache\].*\n/gm, "");
  return { ...result, stderr };
}

/** The files of Node's compile cache folder `folder` (one subfolder per Node version). */
function cacheFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((name) =>
    statSync(path.join(folder, name)).isFile(),
  );
}

/** The V8 code caches of `acp.cjs` the binary wrote (see `src/cli/code-cache.ts`). */
function acpCodeCaches(tmp: string): string[] {
  const folder = path.join(tmp, `tapedeck-code-cache-${process.getuid?.() ?? "user"}`);
  return readdirSync(folder)
    .filter((name) => name.startsWith("acp.cjs-") && name.endsWith(".v8"))
    .sort();
}

/** Spawns `tapedeck acp`, answers `initialize`, asks `session/list`, and closes its stdin. */
async function acpStart(
  context: Awaited<ReturnType<typeof underNode>>,
  node: string,
): Promise<{ list: unknown; exit: number | null; stderr: string }> {
  const agent = spawnAcp(context.env, context.workspace.cwd, "reject", {
    node,
    binary: tapedeckLauncher(),
  });
  const init = await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  expect(init.protocolVersion).toBe(1);
  const list = await agent.agent
    .request(acp.methods.agent.session.list, { cwd: context.workspace.cwd })
    .catch((error: unknown) => error);
  await agent.close();
  return { list, exit: await agent.exited, stderr: agent.stderr() };
}

/** A pi session (the importers' sample) under two ids, in two files. */
function twoPiSessions(folder: string): void {
  const samples = fileURLToPath(
    new URL("../../../packages/importers/__fixtures__/samples/pi", import.meta.url),
  );
  const [project] = readdirSync(samples);
  const [name] = readdirSync(path.join(samples, project as string));
  const text = readFileSync(path.join(samples, project as string, name as string), "utf8");
  const id = /"id":"([0-9a-f-]{36})"/.exec(text)?.[1] as string;
  for (const [index, copy] of ["a", "b"].entries()) {
    mkdirSync(path.join(folder, copy), { recursive: true });
    const other = `${id.slice(0, -1)}${index}`;
    writeFileSync(path.join(folder, copy, "session.jsonl"), text.replaceAll(id, other));
  }
}

const unavailable = nodeReleasesUnavailable();

describe("@tapedeck/node-versions", () => {
  it("has no scripts and links its node into no other package's .bin (scripts stay on the workspace's Node)", () => {
    const root = repositoryRoot();
    const own = path.join(root, "tooling", "node-versions");
    const manifest = JSON.parse(readFileSync(path.join(own, "package.json"), "utf8"));
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.bin).toBeUndefined();
    const packages = ["packages", "packages/test-support", "apps", "tooling"].flatMap((group) =>
      readdirSync(path.join(root, group), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => path.join(root, group, entry.name)),
    );
    // The check works: the list holds agent-bin, and this package's own .bin has the link.
    expect(packages).toContain(path.join(root, "apps", "agent-bin"));
    if (unavailable === undefined) {
      expect(existsSync(path.join(own, "node_modules", ".bin", "node"))).toBe(true);
    }
    const linked = [root, ...packages].filter(
      (folder) => folder !== own && existsSync(path.join(folder, "node_modules", ".bin", "node")),
    );
    expect(linked).toEqual([]);
  });

  it("puts no other node on a dependency build script's PATH (pnpm's hoisted and per-package .bin folders)", () => {
    // pnpm runs a dependency's install script with PATH = its own node_modules/.bin folders, the
    // virtual store's hoisted node_modules/.pnpm/node_modules/.bin, then the root's .bin: a
    // `node` in any of them runs better-sqlite3's node-gyp instead of the project's Node.
    const root = repositoryRoot();
    const store = path.join(root, "node_modules", ".pnpm");
    const binFolders = [
      path.join(root, "node_modules", ".bin"),
      path.join(store, "node_modules", ".bin"),
    ];
    for (const entry of readdirSync(store, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === "node_modules") continue;
      const scope = path.join(store, entry.name, "node_modules");
      binFolders.push(path.join(scope, ".bin"));
      for (const name of readdirSync(scope)) {
        const folders = name.startsWith("@")
          ? readdirSync(path.join(scope, name)).map((inner) => path.join(scope, name, inner))
          : [path.join(scope, name)];
        for (const folder of folders) binFolders.push(path.join(folder, "node_modules", ".bin"));
      }
    }
    // The scan reaches the folder pnpm hoists into (it exists whenever anything has a bin).
    expect(existsSync(path.join(store, "node_modules", ".bin"))).toBe(true);
    const shadowing = binFolders.filter((folder) => existsSync(path.join(folder, "node")));
    expect(shadowing).toEqual([]);
  });

  it("has better-sqlite3 built for the running Node's ABI", () => {
    const root = repositoryRoot();
    const fromQuery = createRequire(path.join(root, "packages", "session-query", "package.json"));
    const folder = path.dirname(fromQuery.resolve("better-sqlite3/package.json"));
    const binary = path.join(folder, "build", "Release", "better_sqlite3.node");
    // A child of this Node loads it: a module built for another ABI fails with
    // "was compiled against a different Node.js version using NODE_MODULE_VERSION …".
    const load = spawnSync(
      process.execPath,
      ["-e", `process.dlopen({ exports: {} }, ${JSON.stringify(binary)}); console.log("ok")`],
      { encoding: "utf8" },
    );
    expect({
      abi: process.versions.modules,
      stderr: load.stderr.trim(),
      stdout: load.stdout.trim(),
    }).toEqual({ abi: process.versions.modules, stderr: "", stdout: "ok" });
  });
});

// The builds exist for linux-x64 only (`nodeReleasesUnavailable` says why elsewhere): CI runs
// there; on another platform these suites are not declared at all.
if (unavailable === undefined) {
  describe.each(nodeReleases())("tapedeck under Node $version", (release) => {
    /** Node's ABI (`NODE_MODULE_VERSION`) of this release, asked of it. */
    let modules = "";
    beforeAll(() => {
      const run = spawnSync(
        release.executable,
        ["-p", 'process.version + " " + process.versions.modules'],
        {
          encoding: "utf8",
        },
      );
      const [version, abi] = run.stdout.trim().split(" ");
      // The package holds the release it says (the pin in its package.json).
      expect(version).toBe(`v${release.version}`);
      modules = abi ?? "";
    });

    it("--version answers, and the next start compiles the CLI from Node's compile cache", async () => {
      const context = await underNode(release);
      const first = await context.logged(["--version"]);
      expect(withoutCacheLog(first)).toEqual({ code: 0, stdout: `${AGENT_VERSION}\n`, stderr: "" });
      // The cache is in NODE_COMPILE_CACHE, in a folder of this Node version's.
      expect(readdirSync(context.compileCache)).toEqual([
        expect.stringMatching(new RegExp(`^v${release.version.replaceAll(".", "\\.")}-x64-`)),
      ]);
      const written = cacheFiles(context.compileCache);
      expect(written.length).toBeGreaterThan(0);
      expect(acceptedFromCache(first.stderr)).toEqual([]);

      const second = await context.logged(["--version"]);
      expect(withoutCacheLog(second)).toEqual(withoutCacheLog(first));
      // The ES module CLI the launcher imports was not compiled again.
      const accepted = acceptedFromCache(second.stderr);
      expect(accepted).toContain(pathToFileURL(tapedeckBinary()).href);
      expect(accepted).toHaveLength(written.length);
      expect(cacheFiles(context.compileCache)).toEqual(written);
    });

    it("run as tapedeck.mjs, the command's own chunks come from the compile cache on the next start", async () => {
      const context = await underNode(release);
      const args = ["sessions", "--help"];
      const first = await context.logged(args, tapedeckBinary());
      expect(withoutCacheLog(first)).toMatchObject({ code: 0, stderr: "" });
      const second = await context.logged(args, tapedeckBinary());
      expect(withoutCacheLog(second)).toEqual(withoutCacheLog(first));
      // `bin.ts` turns the cache on after its own few KB compiled: the command's chunk is cached.
      expect(acceptedFromCache(second.stderr)).toEqual(
        expect.arrayContaining([expect.stringMatching(/\/sessions-command-[A-Z0-9]+\.mjs$/)]),
      );
    });

    it("acp answers initialize, exits cleanly when stdin closes, and runs acp.cjs from its V8 code cache", async () => {
      const context = await underNode(release);
      const first = await acpStart(context, release.executable);
      expect({ exit: first.exit, stderr: first.stderr }).toEqual({ exit: 0, stderr: "" });
      const [cache, ...others] = acpCodeCaches(context.tmp);
      expect(others).toEqual([]);
      expect(cache).toMatch(new RegExp(`^acp\\.cjs-v${release.version.replaceAll(".", "\\.")}-`));
      const cacheFile = path.join(
        context.tmp,
        `tapedeck-code-cache-${process.getuid?.() ?? "user"}`,
        cache as string,
      );
      const written = statSync(cacheFile).mtimeMs;

      // V8 accepted it: not written again.
      const second = await acpStart(context, release.executable);
      expect({ exit: second.exit, stderr: second.stderr }).toEqual({ exit: 0, stderr: "" });
      expect(statSync(cacheFile).mtimeMs).toBe(written);
      // A person who switches between Node versions keeps each version's cache.
      const node20 = await acpStart(context, process.execPath);
      expect(node20.exit).toBe(0);
      expect(acpCodeCaches(context.tmp)).toEqual(
        [cache, expect.stringMatching(new RegExp(`^acp\\.cjs-${process.version}-`))].sort(),
      );

      // session/list needs the index: better-sqlite3, built for the Node.js that installed it.
      if (modules === process.versions.modules) {
        expect(first.list).toEqual({ sessions: [] });
      } else {
        expect(first.list).toMatchObject({
          code: -32603,
          message: expect.stringMatching(/^better-sqlite3 \(.*\) was built for another Node\.js/),
        });
      }
    });

    it("a command that opens the index says in one line that better-sqlite3 needs a rebuild for this Node", async () => {
      const context = await underNode(release);
      for (const args of [["sessions", "list"], ["sessions", "search", "word"], ["index"]]) {
        const result = await context.cli(args);
        if (modules === process.versions.modules) {
          expect(result.code).toBe(0);
          continue;
        }
        expect(result.stdout).toBe("");
        expect(result.stderr).toMatch(
          new RegExp(
            `^tapedeck: better-sqlite3 \\(/\\S+/node_modules/better-sqlite3\\) was built for another Node\\.js version \\(NODE_MODULE_VERSION ${process.versions.modules}, Node\\.js ${process.versions.node.split(".")[0]}; this Node\\.js v${release.version.replaceAll(".", "\\.")} needs ${modules}\\): run \`npm rebuild better-sqlite3\` \\(or reinstall tapedeck\\) with this Node\\.js\\.\\n$`,
          ),
        );
        expect(result.code).toBe(1);
      }
    });

    it("mcp answers tools/list, and a tool that needs the index says why it cannot open it", async () => {
      const context = await underNode(release);
      const transport = new StdioClientTransport({
        command: release.executable,
        args: [tapedeckLauncher(), "mcp"],
        cwd: context.workspace.cwd,
        env: context.env,
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: "tapedeck-test", version: "0.0.0" });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools).toHaveLength(6);
        const listed = (await client.callTool({ name: "list_sessions", arguments: {} })) as {
          content: { type: string; text?: string }[];
          isError?: boolean;
        };
        if (modules === process.versions.modules) {
          expect(listed.isError).toBeUndefined();
        } else {
          expect(listed.isError).toBe(true);
          expect(listed.content[0]?.text).toMatch(
            /^Error \[INDEX_DRIVER_UNLOADABLE\]: better-sqlite3 \(.*\) was built for another Node\.js version .*npm rebuild better-sqlite3/,
          );
        }
      } finally {
        await client.close();
      }
      // No stack: the failure is a Tapedeck error, said once to the client.
      expect(stderr).toBe("");
    });

    it("run streams a scripted turn from the model server and runs its approved tool", async () => {
      const context = await underNode(release, writeFileScript());
      const result = await context.cli(["run", "--approve", "write it"]);
      expect(result).toMatchObject({ code: 0, stdout: "Written.\n" });
      expect(result.stderr).toMatch(/session \S+ · completed/);
      expect(readFileSync(path.join(context.workspace.cwd, "out.txt"), "utf8")).toBe("x");
      expect(context.server?.failures()).toEqual([]);
      context.server?.assertAllConsumed();
    });

    it("import writes logs that verify", async () => {
      const context = await underNode(release);
      const sources = path.join(context.workspace.root, "pi");
      twoPiSessions(sources);
      const imported = await runCli(["import", "pi", sources, "--json"], {
        cwd: context.workspace.cwd,
        env: context.env,
        node: release.executable,
        binary: tapedeckLauncher(),
      });
      expect(imported.stderr).toBe("");
      expect(JSON.parse(imported.stdout)).toMatchObject({
        counts: { created: 2, appended: 0, forked: 0, unchanged: 0 },
      });
      const verified = await context.cli(["sessions", "verify", "--all"]);
      expect(verified).toMatchObject({ code: 0, stderr: "2 checked, 0 damaged\n" });
      expect(verified.stdout.match(/^ok {7}\S+$/gm)).toHaveLength(2);
    });
  });
}
