/**
 * What the ACP agent loads (issue #12: an editor spawns `tapedeck acp` for every session, so it
 * must not pay for code it never runs): through a whole turn it loads neither the importers nor
 * the viewer's code (the HTML export), which other commands of the same binary use.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
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

/** A spawned `tapedeck acp` under a module hook (logged in a temp folder named `prefix`…), initialized. */
async function initializedAgent(prefix: string) {
  const log = moduleLog(testTempDir(prefix));
  const recording = agentScript().user("hello").text("Hi there.").end().build();
  const context = await cliContext(recording, { env: { extra: { NODE_OPTIONS: log.flag } } });
  const agent = context.acp();
  await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  return { log, context, agent };
}

describe("tapedeck acp start-up", () => {
  it("loads neither the importers nor the viewer through initialize, a new session, a turn and session/list", async () => {
    const { log, context, agent } = await initializedAgent("tapedeck-acp-modules-");
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

    const loaded = distFiles(log.read());
    // The hook saw the agent's own code (the check works)…
    expect(loaded.some((file) => /\/acp-command-[A-Z0-9]+\.mjs$/.test(file))).toBe(true);
    // …and the markers are in the bundle, in files the agent did not load.
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
    expect(
      loaded.filter((file) => /\/(?:import-command|import-worker|export)-?/.test(file)),
    ).toEqual([]);
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
