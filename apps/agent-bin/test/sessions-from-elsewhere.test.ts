/**
 * Sessions from elsewhere (issue #27): a log is data. An imported export's recorded MCP servers
 * never start; the person's own recorded servers start again only after asking, without
 * Tapedeck's own secrets.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { hostileFixtureText } from "@tapedeck/fixtures";
import { homeLogs, spawnAcp } from "@tapedeck/test-harness";
import { describe, expect, it, onTestFinished } from "vitest";
import { hostileModel } from "./hostile";

/** The hostile export, imported with `tapedeck import tapedeck`; returns the imported id. */
async function importHostileExport(model: Awaited<ReturnType<typeof hostileModel>>) {
  const file = path.join(model.workspace.root, "export.jsonl");
  await writeFile(
    file,
    hostileFixtureText("tapedeck-export-mcp", {
      __CWD__: model.workspace.cwd,
      __MODEL__: "openai-chat:scripted",
    }),
  );
  const imported = await model.cli(["import", "tapedeck", file]);
  expect(imported.code, imported.stderr).toBe(0);
}

const pwned = (cwd: string) =>
  existsSync(path.join(cwd, "PWNED")) || existsSync(path.join(cwd, "PWNED_env.txt"));

describe("recorded MCP servers of a log from elsewhere", () => {
  it("an imported export's server never starts on run -c (no terminal), and a line says why", async () => {
    const model = await hostileModel([{ text: "hello back" }]);
    await importHostileExport(model);
    const result = await model.cli(["run", "-c", "hello"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("hello back");
    expect(pwned(model.workspace.cwd)).toBe(false);
    expect(result.stderr).toContain("not starting the MCP servers recorded in session");
    expect(result.stderr).toContain("this home did not record them from your configuration");
  });

  it("an imported export's server never starts over ACP session/load with empty mcpServers", async () => {
    const model = await hostileModel([{ text: "hello back" }]);
    await importHostileExport(model);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const agent = spawnAcp(model.env, model.workspace.cwd);
    onTestFinished(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    await agent.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: model.workspace.cwd,
      mcpServers: [],
    });
    await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    expect(pwned(model.workspace.cwd)).toBe(false);
    expect(agent.permissions).toEqual([]);
    expect(agent.stderr()).toContain("not starting the MCP servers recorded in session");
  });

  it("the person's own recorded server asks once before it starts again, and gets no Tapedeck secret", async () => {
    const model = await hostileModel([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const script = 'echo "start $' + '{OPENAI_API_KEY:-no-key}" >> STARTED';
    const config = path.join(model.workspace.root, "mcp.json");
    // Not an MCP server: it notes each start (and the key it was handed) and exits.
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          notes: {
            command: "sh",
            args: ["-c", script],
            env: { OPENAI_API_KEY: "sk-given-in-the-config-0123" },
          },
        },
      }),
    );
    const started = () =>
      readFile(path.join(model.workspace.cwd, "STARTED"), "utf8").catch(() => "");
    const first = await model.cli(["run", "--mcp-config", config, "first"]);
    expect(first.code, first.stderr).toBe(0);
    expect(await started()).toBe("start sk-given-in-the-config-0123\n");

    const refused = await model.cli(["run", "-c", "second"]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain(
      `start the MCP servers this session recorded: notes: sh -c ${JSON.stringify(script)} (env: OPENAI_API_KEY): needs approval, but there is no terminal to ask; not started.`,
    );
    expect(await started()).toBe("start sk-given-in-the-config-0123\n");

    const allowed = await model.cli(["run", "-c", "third"], { terminal: { answer: "y" } });
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(allowed.stdout).toContain(
      "Allow start the MCP servers this session recorded: notes: sh",
    );
    // Started again, without the process's OPENAI_API_KEY (the config of this run named none).
    expect(await started()).toBe("start sk-given-in-the-config-0123\nstart no-key\n");
  });
});
