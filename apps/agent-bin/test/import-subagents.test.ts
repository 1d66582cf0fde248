/**
 * Claude Code sub-agents (Task sidechains) imported over the built binary are linked to the Task
 * call that started them: the list marks them, `sessions lineage` shows "sub-agent of X at #seq"
 * and the parent's sub-agents, `sessions trace` of the call reaches the sub-agent, and the MCP
 * server's `trace_lineage` says the same. The transcript (`__fixtures__/made`) has the shape
 * Claude Code 1.0.x writes: sidechain entries in the parent's file.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cliContext, tapedeckBinary } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const fixture = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/made/claude-code-subagent", import.meta.url),
);

describe("tapedeck import of Claude Code sub-agents", () => {
  it("links each sub-agent to its Task call in lists, lineage, trace and MCP", async () => {
    const { workspace, cli, env } = await cliContext();
    const imported = await cli(["import", "claude-code", fixture]);
    expect(imported.code, imported.stderr).toBe(0);

    const listed = await cli(["sessions", "list", "--all", "--json"]);
    const summaries = JSON.parse(listed.stdout) as {
      id: string;
      title: string;
      spawnedBy?: { sessionId: string; seq: number };
    }[];
    const child = summaries.find((summary) => summary.spawnedBy !== undefined)!;
    const parent = summaries.find((summary) => summary.title === "count the otters")!;
    // turn/start, the prompt, then the Task call: seq 3.
    expect(child.spawnedBy).toEqual({ sessionId: parent.id, seq: 3, callId: "toolu_task" });
    const text = await cli(["sessions", "list", "--all"]);
    expect(text.stdout).toContain(`(sub-agent of ${parent.id} at #3)`);

    const up = await cli(["sessions", "lineage", child.id]);
    expect(up.stdout).toContain(`↑ sub-agent of ${parent.id} at #3`);
    const down = await cli(["sessions", "lineage", parent.id]);
    expect(down.stdout).toContain(`↳ sub-agent ${child.id} (started at #3)`);
    const trace = await cli(["sessions", "trace", parent.id, "3"]);
    expect(trace.stdout).toContain(`started sub-agent ${child.id}`);

    const client = new Client({ name: "tapedeck-test", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [tapedeckBinary(), "mcp", "--all"],
        cwd: workspace.cwd,
        env,
        stderr: "pipe",
      }),
    );
    try {
      const lineage = (await client.callTool({
        name: "trace_lineage",
        arguments: { sessionId: child.id },
      })) as CallToolResult;
      const said = lineage.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      expect(said).toContain(`sub-agent of ${parent.id} at seq 3`);
      const call = (await client.callTool({
        name: "trace_event",
        arguments: { sessionId: parent.id, seq: 3 },
      })) as CallToolResult;
      expect(JSON.stringify(call.structuredContent)).toContain(child.id);
    } finally {
      await client.close();
    }
  });
});
