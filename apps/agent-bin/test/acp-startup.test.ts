/**
 * What the ACP agent loads (issue #12: an editor spawns `tapedeck acp` for every session, so it
 * must not pay for code it never runs): through a whole turn it loads neither the importers nor
 * the viewer's code (the HTML export), which other commands of the same binary use. It runs its
 * own CommonJS bundle (`acp.cjs`) through a V8 code cache, not the ES module CLI's split chunks.
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentScript, cliContext, tapedeckBinary, testTempDir } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { distFiles, type ModuleLog, moduleLog, ZOD_SCHEMAS_BUILT } from "./module-log";

/** How many zod schemas a process built, from its module log (see `moduleLog`). */
function schemasBuilt(log: ModuleLog): number {
  const line = log.read().find((entry) => entry.startsWith(ZOD_SCHEMAS_BUILT));
  if (line === undefined) throw new Error("the module log has no count of zod schemas");
  return Number(line.slice(ZOD_SCHEMAS_BUILT.length));
}

/** How many zod schemas importing the ACP SDK builds (in a process of its own). */
function schemasOfSdkImport(): number {
  const log = moduleLog(testTempDir("tapedeck-acp-sdk-schemas-"));
  const run = spawnSync(
    process.execPath,
    [log.flag, "--input-type=module", "-e", 'await import("@agentclientprotocol/sdk")'],
    { cwd: import.meta.dirname, encoding: "utf8" },
  );
  expect(run.stderr).toBe("");
  return schemasBuilt(log);
}

/** Text only the importers' code holds (where each tool keeps its sessions). */
const IMPORTERS = /PI_CODING_AGENT_DIR/;
/** Text only the viewer's code holds (the HTML export's content security policy). */
const VIEWER = /Content-Security-Policy/;

/** The agent's own bundle, which both `tapedeck.cjs` and `tapedeck.mjs` run for `acp`. */
const acpBundle = () => path.join(path.dirname(tapedeckBinary()), "acp.cjs");

/**
 * Bytes of the ES modules of `dist/` a `tapedeck.mjs acp` start may load: the entry, the loader of
 * `acp.cjs` and the code cache's chunk (≈ 10 KB). Split, the agent loaded ≈ 670 KB of chunks.
 */
const ESM_BUDGET = 25_000;

/** The V8 code caches of `acp.cjs` in the temp directory `tmp` (see `src/cli/code-cache.ts`). */
function acpCodeCaches(tmp: string): string[] {
  const folder = path.join(tmp, `tapedeck-code-cache-${process.getuid?.() ?? "user"}`);
  try {
    return readdirSync(folder)
      .filter((name) => name.startsWith("acp.cjs-"))
      .map((name) => path.join(folder, name));
  } catch {
    return [];
  }
}

/**
 * A spawned `tapedeck acp` under a module hook (logged in a temp folder named `prefix`…, which is
 * also its temp directory), initialized.
 */
async function initializedAgent(prefix: string) {
  const tmp = testTempDir(prefix);
  const log = moduleLog(tmp);
  const recording = agentScript().user("hello").text("Hi there.").end().build();
  const context = await cliContext(recording, {
    env: { extra: { NODE_OPTIONS: log.flag, TMPDIR: tmp } },
  });
  const agent = context.acp();
  await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  return { log, context, agent, tmp };
}

/**
 * Spawns the executable (`tapedeck.cjs acp`, what `npx tapedeck acp` runs) under a module hook,
 * with `tmp` as its temp directory, and returns once it answered `initialize` and exited.
 */
async function launcherInitialize(tmp: string, log: ModuleLog): Promise<void> {
  const launcher = path.join(path.dirname(tapedeckBinary()), "tapedeck.cjs");
  const child = spawn(process.execPath, [log.flag, launcher, "acp"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: tmp,
      TAPEDECK_HOME: path.join(tmp, "home"),
      TMPDIR: tmp,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"id":1')) resolve();
    });
    child.on("exit", () =>
      reject(new Error(`tapedeck acp exited without answering: ${output}${stderr}`)),
    );
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
    );
  });
  child.stdin.end();
  expect(await exited).toBe(0);
  expect(stderr).toBe("");
}

describe("tapedeck acp start-up", () => {
  it("loads neither the importers nor the viewer through initialize, a new session, a turn and session/list", async () => {
    const { log, context, agent, tmp } = await initializedAgent("tapedeck-acp-modules-");
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: context.workspace.cwd,
      mcpServers: [],
    });
    const answer = await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    await agent.agent.request(acp.methods.agent.session.list, { cwd: context.workspace.cwd });
    await agent.close();
    expect(agent.stderr()).toBe("");
    // `tapedeck.mjs acp` ran acp.cjs through its code cache too.
    expect(acpCodeCaches(tmp)).toHaveLength(1);

    const loaded = distFiles(log.read());
    // The hook saw the ES module CLI hand `acp` to its bundle (the check works), and the agent
    // ran from that bundle, not from split chunks: the ES modules it loaded are a few KB…
    expect(loaded.some((file) => /\/acp-command-[A-Z0-9]+\.mjs$/.test(file))).toBe(true);
    expect(loaded.reduce((sum, file) => sum + statSync(file).size, 0)).toBeLessThan(ESM_BUDGET);
    loaded.push(acpBundle());
    // …and the markers are in the build, in files the agent did not load.
    const dist = path.dirname(tapedeckBinary());
    const holding = (marker: RegExp) =>
      readdirSync(dist)
        .map((name) => path.join(dist, name))
        .filter((file) => marker.test(readFileSync(file, "utf8")));
    expect(holding(IMPORTERS).length).toBeGreaterThan(0);
    expect(holding(VIEWER).length).toBeGreaterThan(0);
    for (const marker of [IMPORTERS, VIEWER]) {
      expect(loaded.filter((file) => marker.test(readFileSync(file, "utf8")))).toEqual([]);
    }
    expect(loaded.filter((file) => /\/(?:import-command|export)-?/.test(file))).toEqual([]);
  });

  it("evaluates acp.cjs without the host's runtime: no node:crypto, child_process or worker_threads", () => {
    const run = spawnSync(
      process.execPath,
      [
        "-e",
        `require(${JSON.stringify(acpBundle())}); process.stdout.write(process.moduleLoadList.join("\\n"))`,
      ],
      { encoding: "utf8" },
    );
    expect(run.stderr).toBe("");
    const builtins = run.stdout.split("\n");
    // The list names what a bundle's evaluation loads (the check works)…
    expect(builtins).toContain("NativeModule stream");
    // …and the agent's runtime, which loads these, is evaluated only after `initialize`.
    for (const name of ["crypto", "child_process", "worker_threads"]) {
      expect(builtins).not.toContain(`NativeModule ${name}`);
    }
  });

  it("runs acp.cjs from the executable without loading any ES module of the CLI", async () => {
    const tmp = testTempDir("tapedeck-acp-launcher-");
    const log = moduleLog(tmp);
    await launcherInitialize(tmp, log);
    const loaded = distFiles(log.read());
    // The hook sees the launcher itself (the check works), and nothing else of dist/.
    expect(loaded.map((file) => path.basename(file))).toEqual(["tapedeck.cjs"]);
    expect(acpCodeCaches(tmp)).toHaveLength(1);
  });

  it("writes acp.cjs's code cache after the first initialize, then uses it (V8 accepts it: not written again)", async () => {
    const tmp = testTempDir("tapedeck-acp-cache-");
    const log = moduleLog(tmp);
    expect(acpCodeCaches(tmp)).toEqual([]);
    await launcherInitialize(tmp, log);
    const [cache, ...others] = acpCodeCaches(tmp);
    expect(others).toEqual([]);
    expect(path.basename(cache as string)).toMatch(
      new RegExp(
        `^acp\\.cjs-${process.version.replaceAll(".", "\\.")}-${process.arch}-${statSync(acpBundle()).size}-[\\d-]+\\.v8$`,
      ),
    );
    // It holds what a start compiled: more than the bundle's top level alone.
    expect(statSync(cache as string).size).toBeGreaterThan(100_000);
    const written = statSync(cache as string).mtimeMs;
    await launcherInitialize(tmp, log);
    expect(statSync(cache as string).mtimeMs).toBe(written);
  });

  it("builds only the ACP schemas of the messages it receives, not the SDK's whole protocol", async () => {
    const { log, agent } = await initializedAgent("tapedeck-acp-schemas-");
    await agent.close();
    const built = schemasBuilt(log);
    const sdk = schemasOfSdkImport();
    // Importing the SDK builds every schema of the protocol (≈ 2,600 zod schemas): about half
    // of the agent's start before it could answer.
    expect(sdk).toBeGreaterThan(1000);
    // The agent bundles the SDK with each schema built on first use: through `initialize` it
    // builds that message's schemas and its own, a small fraction of the protocol's.
    expect(built).toBeGreaterThan(0);
    expect(built).toBeLessThan(sdk / 5);
  });
});
