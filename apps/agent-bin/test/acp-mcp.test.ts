import * as acp from "@agentclientprotocol/sdk";
import { exampleServerCommand } from "@tapedeck/mcp-example";
import { cliContext, agentScript as script, tapedeckBinary } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

describe("tapedeck acp with mcpServers", () => {
  it("offers the editor's MCP servers, asks before a non-read-only tool, survives a crash, reconnects on load", async () => {
    const recording = script()
      .user("use the servers")
      .toolCall("mcp__example__echo", { text: "from acp" }, { callId: "call_echo" })
      .toolResult("(recorded)")
      .toolCall("mcp__example__crash", {}, { callId: "call_crash" })
      .toolResult("(recorded)", { isError: true })
      .toolCall("mcp__history__list_sessions", { limit: 1 }, { callId: "call_list" })
      .toolResult("(recorded)")
      .text("Done.")
      .user("again")
      .toolCall("mcp__example__echo", { text: "after load" }, { callId: "call_echo_2" })
      .toolResult("(recorded)")
      .text("Done again.")
      .end()
      .build();
    // MCP tools change the requests (tool list, outputs): matching is off, the log is checked.
    const { workspace, logs, acp: start } = await cliContext(recording, { match: "off" });
    const example = exampleServerCommand();
    const mcpServers: acp.McpServer[] = [
      { name: "example", command: example.command, args: example.args, env: [] },
      {
        name: "history",
        command: process.execPath,
        args: [tapedeckBinary(), "mcp"],
        env: [{ name: "TAPEDECK_HOME", value: workspace.home }],
      },
    ];
    const first = start();
    const init = await first.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false });
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, {
      cwd: workspace.cwd,
      mcpServers,
    });
    const answer = await first.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "use the servers" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    const updates = first.updates.map((notification) => notification.update);
    expect(updates.some((update) => update.sessionUpdate === "notice")).toBe(false);
    const final = (callId: string) =>
      updates
        .filter(
          (update) => update.sessionUpdate === "tool_call_update" && update.toolCallId === callId,
        )
        .at(-1) as acp.ToolCallUpdate | undefined;
    expect(final("call_echo")).toMatchObject({
      status: "completed",
      rawOutput: { output: "echo: from acp" },
    });
    expect(final("call_crash")).toMatchObject({ status: "failed" });
    expect(final("call_list")).toMatchObject({ status: "completed" });
    expect(JSON.stringify(final("call_list")?.rawOutput)).toContain(sessionId);
    // Only the tool without readOnlyHint asked (the harness allows once).
    const log = await logs.lines(sessionId);
    expect(
      log.filter((event) => event.type === "approval/request").map((event) => event.callId),
    ).toEqual(["call_crash"]);
    expect(
      log.find((event) => event.callId === "call_crash" && event.type === "function_call_output"),
    ).toMatchObject({
      isError: true,
    });
    expect(log.find((event) => event.type === "x-mcp/servers")?.servers).toMatchObject([
      { name: "example", envNames: [] },
      { name: "history", envNames: ["TAPEDECK_HOME"] },
    ]);
    await first.close();

    // A new process loads the session with no servers given: the recorded ones reconnect (the
    // history server's TAPEDECK_HOME from this process's environment).
    const second = start();
    await second.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    await second.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace.cwd,
      mcpServers: [],
    });
    const again = await second.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    expect(again.stopReason).toBe("end_turn");
    const echoed = second.updates
      .map((notification) => notification.update)
      .filter(
        (update) =>
          update.sessionUpdate === "tool_call_update" && update.toolCallId === "call_echo_2",
      )
      .at(-1);
    expect(echoed).toMatchObject({
      status: "completed",
      rawOutput: { output: "echo: after load" },
    });
    expect(second.stderr()).not.toContain("example-mcp:");
    // Recorded servers start again only after the person allowed them (asked once).
    expect(
      second.permissions.filter((request) =>
        request.toolCall.title?.startsWith("start the MCP servers this session recorded: "),
      ),
    ).toHaveLength(1);
  }, 60_000);
});
