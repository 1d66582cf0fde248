/**
 * What the ACP agent loads (issue #12: an editor spawns `tapedeck acp` for every session, so it
 * must not pay for code it never runs): through a whole turn it loads neither the importers nor
 * the viewer's code (the HTML export), which other commands of the same binary use.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { agentScript, cliContext, tapedeckBinary, testTempDir } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { distFiles, moduleLog } from "./module-log";

/** Text only the importers' code holds (where each tool keeps its sessions). */
const IMPORTERS = /PI_CODING_AGENT_DIR/;
/** Text only the viewer's code holds (the HTML export's content security policy). */
const VIEWER = /Content-Security-Policy/;

describe("tapedeck acp start-up", () => {
  it("loads neither the importers nor the viewer through initialize, a new session, a turn and session/list", async () => {
    const log = moduleLog(testTempDir("tapedeck-acp-modules-"));
    const recording = agentScript().user("hello").text("Hi there.").end().build();
    const context = await cliContext(recording, { env: { extra: { NODE_OPTIONS: log.flag } } });
    const agent = context.acp();
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
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
});
