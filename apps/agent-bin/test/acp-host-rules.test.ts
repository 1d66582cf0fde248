import * as acp from "@agentclientprotocol/sdk/unstable";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { updatesOf } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpHarness, acpHarness } from "./acp-harness";

const open: AcpHarness[] = [];
afterEach(async () => {
  for (const harness of open.splice(0).reverse()) await harness.close();
});

async function harnessWith(provider: ReturnType<typeof scriptedProvider>, existing?: AcpHarness) {
  const harness = await acpHarness(
    () => provider,
    {},
    existing === undefined ? undefined : { home: existing.home, cwd: existing.cwd },
  );
  open.push(harness);
  return harness;
}

const prompt = (h: AcpHarness, sessionId: string, text: string) =>
  h.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });

describe("ACP: what the host reads and restores", () => {
  it("session/load after a restart answers the mode and model the last turn ran with", async () => {
    const first = await harnessWith(scriptedProvider([{ text: "one" }]));
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, {
      cwd: first.cwd,
      mcpServers: [],
    });
    await first.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    await first.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "openai:gpt-4.1",
    });
    await prompt(first, sessionId, "hi");
    // A new agent process (same home): nothing kept in memory.
    const second = await harnessWith(scriptedProvider([]), first);
    const loaded = await second.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: second.cwd,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("auto");
    expect(loaded.configOptions?.[0]).toMatchObject({ currentValue: "openai:gpt-4.1" });
  });

  it("/compact is recorded as a compaction with trigger user, never as a user message", async () => {
    const provider = scriptedProvider([
      { text: "A1" },
      { text: "A2" },
      { text: "SUMMARY" },
      { text: "A3" },
    ]);
    const h = await harnessWith(provider);
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: h.cwd,
      mcpServers: [],
    });
    await prompt(h, sessionId, "one");
    await prompt(h, sessionId, "two");
    expect((await prompt(h, sessionId, "/compact")).stopReason).toBe("end_turn");
    await prompt(h, sessionId, "three");
    const session = await h.store.readSession(sessionId);
    const users = session.events.filter(
      (event) => event.type === "message" && event.role === "user",
    );
    expect(users.map((event) => (event.type === "message" ? event.content : ""))).toEqual([
      "one",
      "two",
      "three",
    ]);
    expect(session.events.filter((event) => event.type === "compaction")).toMatchObject([
      { trigger: "user", summary: "SUMMARY" },
    ]);
    const last = JSON.stringify(provider.requests.at(-1)?.input);
    expect(last).not.toContain("/compact");
    expect(last).toContain("SUMMARY");
  });

  it("/goal is advertised, recorded as goal/set without a turn, and sent with later prompts", async () => {
    const provider = scriptedProvider([{ text: "A1" }, { text: "A2" }]);
    const h = await harnessWith(provider);
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: h.cwd,
      mcpServers: [],
    });
    await prompt(h, sessionId, "one");
    await new Promise((resolve) => setImmediate(resolve));
    const advertised = updatesOf(h.updates, "available_commands_update");
    expect(advertised[0]?.availableCommands.map((command) => command.name)).toEqual([
      "compact",
      "goal",
    ]);
    expect((await prompt(h, sessionId, "/goal Ship the parser")).stopReason).toBe("end_turn");
    expect(provider.requests).toHaveLength(1);
    await prompt(h, sessionId, "two");
    expect(provider.requests[1]?.instructions).toContain("Current goal: Ship the parser");
    const session = await h.store.readSession(sessionId);
    expect(session.goal).toBe("Ship the parser");
    expect(session.turnCount).toBe(2);
    expect(JSON.stringify(provider.requests[1]?.input)).not.toContain("/goal");
  });
});
