import { writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { INTERRUPTED_OUTPUT } from "@tapedeck/session";
import {
  cliContext,
  type SpawnedAgent,
  agentScript as script,
  updatesOf,
  waitFor,
} from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

async function initialize(agent: SpawnedAgent) {
  return agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
}

describe("tapedeck acp (spawned binary, replayed model)", () => {
  it("runs a two-turn session with a tool call, over stdio", async () => {
    const recording = script()
      .user("hello")
      .text("Hi! How can I help?")
      .user("what files are here?")
      .toolCall("list_dir", {}, { callId: "call_ls" })
      .toolResult("notes.txt")
      .text("There is one file: notes.txt.")
      .end()
      .build();
    const { workspace, server, acp: start } = await cliContext(recording);
    await writeFile(path.join(workspace.cwd, "notes.txt"), "n");
    const agent = start();
    const init = await initialize(agent);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const { sessionId, configOptions } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: workspace.cwd,
      mcpServers: [],
    });
    // The model list is the server's (GET /v1/models), with the configured model first.
    const modelOption = configOptions?.[0];
    expect(
      modelOption?.type === "select"
        ? modelOption.options.map((option) => ("value" in option ? option.value : ""))
        : [],
    ).toEqual(["openai:gpt-4.1-mini"]);
    const first = await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    expect(first.stopReason).toBe("end_turn");
    const second = await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "what files are here?" }],
    });
    expect(second.stopReason).toBe("end_turn");
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    const text = updatesOf(agent.updates, "agent_message_chunk")
      .map((update) => (update.content.type === "text" ? update.content.text : ""))
      .join("");
    expect(text).toBe("Hi! How can I help?There is one file: notes.txt.");
    expect(updatesOf(agent.updates, "tool_call_update").at(-1)).toMatchObject({
      toolCallId: "call_ls",
      status: "completed",
    });
    // session/list comes from the SQLite index (better-sqlite3 loaded next to the bundle).
    const listed = await agent.agent.request(acp.methods.agent.session.list, {
      cwd: workspace.cwd,
    });
    expect(listed.sessions).toEqual([
      expect.objectContaining({ sessionId, cwd: workspace.cwd, title: "hello" }),
    ]);
  });

  it("after SIGKILL mid-tool, a new process loads the session with the call failed and continues cleanly", async () => {
    const recording = script()
      .user("run the slow thing")
      .toolCall("run_command", { command: "sleep 5" }, { callId: "call_slow" })
      .toolResult(
        `${INTERRUPTED_OUTPUT} Its process group was still running after the crash and has been ended (SIGTERM).`,
        { isError: true },
      )
      .user("what happened?")
      .text("The command was interrupted.")
      .end()
      .build();
    const { workspace, server, acp: start, logs } = await cliContext(recording);
    const first = start();
    await initialize(first);
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, {
      cwd: workspace.cwd,
      mcpServers: [],
    });
    await first.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    void first.agent
      .request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "run the slow thing" }],
      })
      .catch(() => undefined);
    await waitFor(
      () =>
        updatesOf(first.updates, "tool_call_update").some(
          (update) => update.status === "in_progress",
        ),
      "the tool to start",
    );
    first.child.kill("SIGKILL");
    await first.exited;

    const before = (await logs.text(sessionId)) ?? "";
    // The call, then the process group its command runs in; no output.
    const tail = before.trimEnd().split("\n").slice(-2);
    expect(tail[0]).toContain('"type":"function_call"');
    expect(tail[1]).toContain('"type":"x-process/start"');

    const second = start();
    await initialize(second);
    await second.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace.cwd,
      mcpServers: [],
    });
    const failed = updatesOf(second.updates, "tool_call_update").find(
      (update) => update.toolCallId === "call_slow",
    );
    expect(failed?.status).toBe("failed");
    expect(JSON.stringify(failed?.content)).toContain("SESSION_RESUME_INTERRUPTED");
    expect(JSON.stringify(failed?.content)).toContain(
      "was still running after the crash and has been ended",
    );

    await second.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    const answer = await second.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "what happened?" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    // The model request matched the recording, which has the synthetic output and no orphan call.
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();

    const after = (await logs.text(sessionId)) ?? "";
    expect(after.startsWith(before)).toBe(true);
    const added = after
      .slice(before.length)
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; synthetic?: boolean; status?: string });
    expect(added.slice(0, 2)).toMatchObject([
      { type: "function_call_output", synthetic: true },
      { type: "turn/end", status: "interrupted", synthetic: true },
    ]);
    expect(added.slice(2).map((event) => event.type)).toEqual([
      "turn/start",
      "message",
      "model/request",
      ...added.slice(5, -3).map(() => "assistant/chunk"),
      "model/response",
      "message",
      "turn/end",
    ]);
  });
});
