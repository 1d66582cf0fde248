import { existsSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { spawnAcp } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("approval prompts show exactly what runs (issue #11 item 1)", () => {
  it("CLI: an ESC[2K + CR command is shown with its escapes visible and flagged", async () => {
    const marker = "ANSI_SPOOF_RAN";
    const command = `touch ${marker}\u001b[2K\rRun npm test`;
    const attack = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command } }] },
      { text: "done" },
    ]);
    const result = await attack.cli(["run", "check it"], { terminal: { answer: "n" } });
    const shown = result.stdout;
    const prompt = shown.slice(shown.indexOf("Allow "), shown.indexOf("[N]o: ") + 6);
    expect(prompt).toBe(
      `Allow Run touch ${marker}\\e[2K\\rRun npm test [contains hidden characters]? [y]es / [a]lways for run_command / [N]o: `,
    );
    expect(shown).toContain("This call contains hidden characters");
    expect(existsSync(path.join(attack.workspace.cwd, marker))).toBe(false);
  });

  it("CLI piped (no terminal): the same escaped, flagged title; no raw escape reaches any stream", async () => {
    const marker = "ANSI_SPOOF_RAN";
    const command = `touch ${marker}\u001b[2K\rRun npm test \u202Eevil\u0007`;
    const attack = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command } }] },
      { text: "done" },
    ]);
    const result = await attack.cli(["run", "check it"]);
    const title = `Run touch ${marker}\\e[2K\\rRun npm test \\u{202E}evil\\x07 [contains hidden characters]`;
    expect(result.stderr).toContain(`● ${title}\n`);
    expect(result.stderr).toContain(`  ✗ ${title}: needs approval, but there is no terminal`);
    // Escaped whether or not stdout/stderr are terminals: nothing raw to rewrite a later line.
    const printed = `${result.stdout}${result.stderr}`;
    for (const raw of ["\u001b", "\r", "\u0007", "\u202E"]) expect(printed).not.toContain(raw);
    expect(existsSync(path.join(attack.workspace.cwd, marker))).toBe(false);
  });

  it("CLI: a command longer than 80 characters is shown whole, its tail included", async () => {
    const command = `${"echo harmless && ".repeat(5)}echo ok; touch TAIL_RAN`;
    expect(command.length).toBeGreaterThan(80);
    const attack = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command } }] },
      { text: "done" },
    ]);
    const result = await attack.cli(["run", "go"], { terminal: { answer: "n" } });
    expect(result.stdout).toContain(`Allow Run ${command}? [y]es`);
    expect(result.stdout).not.toContain("contains hidden characters");
  });

  it("ACP: the permission request's title and rawInput show a bidi override as \\u{202E}", async () => {
    const command = "echo safe \u202E; 00 peels #\u202C";
    const attack = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command } }] },
      { text: "done" },
    ]);
    const agent = spawnAcp(attack.env, attack.workspace.cwd, "reject");
    cleanups.push(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: attack.workspace.cwd,
      mcpServers: [],
    });
    await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(agent.permissions).toHaveLength(1);
    const toolCall = agent.permissions[0]?.toolCall;
    expect(toolCall?.title).toBe(
      "Run echo safe \\u{202E}; 00 peels #\\u{202C} [contains hidden characters]",
    );
    expect(toolCall?.rawInput).toMatchObject({
      command: "echo safe \\u{202E}; 00 peels #\\u{202C}",
    });
  });
});
