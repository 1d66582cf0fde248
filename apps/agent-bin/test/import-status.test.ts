/**
 * An imported session's last turn is left open (its source may still grow), and used to list as
 * `interrupted` — as if a Tapedeck run had died in it. Over the built binary: `sessions list`
 * (text and JSON) and MCP's `list_sessions` say `imported`; once continued here, it is a
 * Tapedeck session like any other (`completed`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cliContext, agentScript as script, tapedeckBinary } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const id = "7a1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d7";

/** A two-line Claude Code transcript: a prompt and its answer, in `cwd`. */
function transcript(cwd: string): string {
  const common = { sessionId: id, cwd, isSidechain: false, userType: "external", version: "2.0.1" };
  const lines = [
    {
      ...common,
      type: "user",
      uuid: "u1",
      parentUuid: null,
      timestamp: "2026-11-30T10:00:00.000Z",
      message: { role: "user", content: "count the otters" },
    },
    {
      ...common,
      type: "assistant",
      uuid: "a1",
      parentUuid: "u1",
      timestamp: "2026-11-30T10:00:05.000Z",
      message: {
        id: "msg_1",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "Seven otters." }],
      },
    },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

describe("the status of an imported session", () => {
  it("lists as imported in sessions list and MCP, and as completed once continued here", async () => {
    const recording = script().user("and the beavers?").text("Three beavers.").end().build();
    const { workspace, env, cli } = await cliContext(recording, { match: "loose" });
    const project = path.join(workspace.root, "claude", "-work");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, `${id}.jsonl`), transcript(workspace.cwd));
    const imported = await cli(["import", "claude-code", path.join(workspace.root, "claude")]);
    expect(imported.code, imported.stderr).toBe(0);

    const text = await cli(["sessions", "list"]);
    expect(text.stdout).toMatch(/ imported +count the otters/);
    expect(text.stdout).not.toContain("interrupted");
    const json = await cli(["sessions", "list", "--json"]);
    const [summary] = JSON.parse(json.stdout) as { id: string; status: string }[];
    expect(summary?.status).toBe("imported");

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [tapedeckBinary(), "mcp"],
      cwd: workspace.cwd,
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "tapedeck-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const listed = await client.callTool({ name: "list_sessions", arguments: {} });
      const data = listed.structuredContent as { sessions: { id: string; status: string }[] };
      expect(data.sessions).toMatchObject([{ id: summary!.id, status: "imported" }]);
      const shown = listed.content as { type: string; text: string }[];
      expect(shown[0]?.text).toContain(`${summary!.id} · imported`);
    } finally {
      await client.close();
    }

    const continued = await cli(["run", "-r", summary!.id, "and the beavers?"]);
    expect(continued, continued.stderr).toMatchObject({ code: 0, stdout: "Three beavers.\n" });
    const after = await cli(["sessions", "list", "--json"]);
    expect(JSON.parse(after.stdout)).toMatchObject([{ id: summary!.id, status: "completed" }]);
  });
});
