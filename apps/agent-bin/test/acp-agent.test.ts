import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { DEFAULT_SYSTEM_PROMPT } from "@tapedeck/agent";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { createReplayProvider, type ReplayProvider } from "@tapedeck/llm-replay";
import { uuidv7 } from "@tapedeck/session";
import { agentScript, testWorkspace, updatesOf } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpHarness, acpHarness } from "./acp-harness";

let harness: AcpHarness | undefined;
let replay: ReplayProvider | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  // Every recorded model response must have been asked for, in order.
  const used = replay;
  replay = undefined;
  used?.assertAllConsumed();
});

/** A recording in the agent's own shape: its seed system prompt and its tool definitions. */
const script = (options: { cwd?: string; model?: string } = {}) => agentScript(options);

type Script = ReturnType<typeof script>;

/** An agent whose model answers from the recording (strict request matching). */
async function start(recording: Script, capabilities: acp.ClientCapabilities = {}) {
  const provider = createReplayProvider(recording.build().recording(), { id: "openai" });
  replay = provider;
  harness = await acpHarness(() => provider, capabilities);
  return { harness, provider };
}

async function newSession(h: AcpHarness) {
  return h.agent.request(acp.methods.agent.session.new, { cwd: h.cwd, mcpServers: [] });
}

/**
 * A session in auto mode whose prompt is running `sleep 20` (its tool call is in progress); the
 * recording ends the turn cancelled. `started` is when the prompt was sent.
 */
async function runSlowCommand() {
  const { harness: h } = await start(
    script()
      .user("sleep")
      .toolCall("run_command", { command: "sleep 20" }, { callId: "s1" })
      .toolResult("Error: Command cancelled; it was killed.\n", { isError: true })
      .end("cancelled"),
  );
  const { sessionId } = await newSession(h);
  await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
  const started = Date.now();
  const pending = h.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "sleep" }],
  });
  while (
    !updatesOf(h.updates, "tool_call_update").some((update) => update.status === "in_progress")
  ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { h, sessionId, pending, started };
}

describe("ACP agent (in-process)", () => {
  it("initialize advertises loadSession, session capabilities and agent info", async () => {
    const provider = scriptedProvider([]);
    const toAgent = new TransformStream<Uint8Array, Uint8Array>();
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    const { createAcpAgent } = await import("../src/acp/acp-agent");
    const { createHost } = await import("@tapedeck/host");
    const agentConnection = createAcpAgent({
      host: createHost({
        env: { TAPEDECK_HOME: "/nonexistent-tapedeck-home" },
        providerFor: () => provider,
      }),
      log: () => undefined,
    }).connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
    const client = acp.client().connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
    const response = await client.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
    });
    expect(response).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
      },
      agentInfo: { name: "tapedeck" },
    });
    client.close();
    agentConnection.close();
  });

  it("session/new answers with modes and the model option; prompt streams text and ends end_turn", async () => {
    const { harness: h } = await start(
      script()
        .user("hi")
        .text("Hello from Tapedeck", { chunks: ["Hello ", "from ", "Tapedeck"] })
        .end(),
    );
    const created = await newSession(h);
    expect(created.modes?.currentModeId).toBe("ask");
    expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(["ask", "auto", "deny"]);
    expect(created.configOptions?.[0]).toMatchObject({
      id: "model",
      category: "model",
      currentValue: "openai:gpt-4.1-mini",
    });
    const response = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(response.stopReason).toBe("end_turn");
    const chunks = updatesOf(h.updates, "agent_message_chunk");
    expect(
      chunks.map((chunk) => (chunk.content.type === "text" ? chunk.content.text : "")).join(""),
    ).toBe("Hello from Tapedeck");
    expect(chunks).toHaveLength(3);
    expect(new Set(chunks.map((chunk) => chunk.messageId)).size).toBe(1);
    expect(updatesOf(h.updates, "usage_update")).toHaveLength(1);
    const session = await h.store.readSession(created.sessionId);
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });
    expect(session.events.find((event) => event.type === "turn/start")).toMatchObject({
      resumed: false,
      policy: { approval: "ask" },
    });
  });

  it("asks permission for a write; allowed runs it and reports the tool call lifecycle", async () => {
    const { harness: h } = await start(
      script()
        .user("write")
        .toolCall("write_file", { path: "out.txt", content: "hello" }, { callId: "w1" })
        .toolResult("Wrote 5 bytes to out.txt.")
        .text("Wrote it.")
        .end(),
    );
    const { sessionId } = await newSession(h);
    const response = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(h.permissionRequests).toHaveLength(1);
    expect(h.permissionRequests[0]).toMatchObject({
      toolCall: {
        toolCallId: "w1",
        kind: "edit",
        // The change is shown, not only the path.
        title: 'Write out.txt: content "hello"',
        locations: [{ path: path.join(h.cwd, "out.txt") }],
      },
    });
    expect(h.permissionRequests[0]?.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    expect(await readFile(path.join(h.cwd, "out.txt"), "utf8")).toBe("hello");
    expect(updatesOf(h.updates, "tool_call")[0]).toMatchObject({
      toolCallId: "w1",
      status: "pending",
      rawInput: { path: "out.txt", content: "hello" },
    });
    expect(updatesOf(h.updates, "tool_call_update").map((update) => update.status)).toEqual([
      "in_progress",
      "completed",
    ]);
  });

  it("a rejected permission leaves the file alone and fails the tool call", async () => {
    const { harness: h } = await start(
      script()
        .user("write")
        .toolCall("write_file", { path: "out.txt", content: "hello" }, { callId: "w1" })
        .toolResult("Error: The user rejected this write_file call.", { isError: true })
        .text("OK, not writing.")
        .end(),
    );
    h.answer.next = async () => ({ outcome: { outcome: "selected", optionId: "reject" } });
    const { sessionId } = await newSession(h);
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    await expect(readFile(path.join(h.cwd, "out.txt"), "utf8")).rejects.toThrow();
    const final = updatesOf(h.updates, "tool_call_update").at(-1);
    expect(final).toMatchObject({ toolCallId: "w1", status: "failed" });
    const session = await h.store.readSession(sessionId);
    expect(session.events.find((event) => event.type === "approval/decision")).toMatchObject({
      decision: "reject",
    });
  });

  it("auto mode (set_mode) runs commands without asking", async () => {
    const { harness: h } = await start(
      script()
        .user("run")
        .toolCall("run_command", { command: "echo hi" }, { callId: "c1" })
        .toolResult("exit code 0\nhi\n")
        .text("done")
        .end(),
    );
    const { sessionId } = await newSession(h);
    await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run" }],
    });
    expect(h.permissionRequests).toHaveLength(0);
    expect(updatesOf(h.updates, "tool_call_update").at(-1)).toMatchObject({ status: "completed" });
    await expect(
      h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("session/cancel during a slow command kills it and the prompt answers cancelled", async () => {
    const { h, sessionId, pending, started } = await runSlowCommand();
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(updatesOf(h.updates, "tool_call_update").at(-1)).toMatchObject({
      toolCallId: "s1",
      status: "failed",
    });
    const session = await h.store.readSession(sessionId);
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "cancelled" });
  });

  it("session/load replays user text, agent text, tool calls with outputs and a compaction", async () => {
    harness = await acpHarness(() => scriptedProvider([]), { session: { compaction: {} } });
    const h = harness;
    const log = script({ cwd: h.cwd })
      .user("list")
      .toolCall("list_dir", {}, { callId: "l1" })
      .toolResult("file.txt")
      .text("first answer")
      .user("go on")
      .toolCall("run_command", { command: "false" }, { callId: "c2" })
      .toolResult("Error: exit code 1\n", { isError: true })
      .text("it failed")
      .compact("SUMMARY")
      .user("again")
      .text("second answer")
      .end()
      .build();
    const sessionId = log.header.sessionId;
    const { mkdir } = await import("node:fs/promises");
    await mkdir(h.store.sessionsDir, { recursive: true });
    await writeFile(h.store.pathOf(sessionId), log.jsonl());
    const loaded = await h.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: h.cwd,
      mcpServers: [],
    });
    // The scripted turns ran in `auto`, but not in this home (the log was placed here): a log
    // cannot bring its `auto`, the session opens in `ask`.
    expect(loaded.modes?.currentModeId).toBe("ask");
    expect(loaded.configOptions?.[0]).toMatchObject({ id: "model" });
    const kinds = h.updates.map((notification) => notification.update.sessionUpdate);
    // usage_update after each model call, as the live turn sent it (one projection of the log).
    expect(kinds).toEqual([
      "user_message_chunk",
      "usage_update",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
      "usage_update",
      "user_message_chunk",
      "usage_update",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
      "usage_update",
      "compaction_update",
      "user_message_chunk",
      "agent_message_chunk",
      "usage_update",
      "session_info_update",
      "available_commands_update",
    ]);
    expect(updatesOf(h.updates, "tool_call")[0]).toMatchObject({
      toolCallId: "l1",
      kind: "read",
      title: "List .",
    });
    expect(
      updatesOf(h.updates, "tool_call_update").map((update) => [update.toolCallId, update.status]),
    ).toEqual([
      ["l1", "completed"],
      ["c2", "failed"],
    ]);
    expect(updatesOf(h.updates, "compaction_update")[0]).toMatchObject({
      status: "completed",
      summary: [{ type: "text", text: "SUMMARY" }],
    });
    expect(
      updatesOf(h.updates, "agent_message_chunk").map(
        (update) => update.content.type === "text" && update.content.text,
      ),
    ).toEqual(["first answer", "it failed", "second answer"]);
    expect(updatesOf(h.updates, "session_info_update")[0]).toMatchObject({ title: "list" });
  });

  it("a prompt after session/load sends the compacted surface to the model", async () => {
    const full = script()
      .user("one")
      .text("A")
      .compact("S1")
      .user("two", { resumed: true })
      .text("B")
      .end()
      .build();
    // Only the second model call is still to come; the first is history.
    const recording = full.recording();
    const provider = createReplayProvider(
      { ...recording, calls: recording.calls.slice(1) },
      { id: "openai" },
    );
    replay = provider;
    harness = await acpHarness(() => provider, {});
    const h = harness;
    const past = script({ cwd: h.cwd }).user("one").text("A").compact("S1").end().build();
    const { mkdir } = await import("node:fs/promises");
    await mkdir(h.store.sessionsDir, { recursive: true });
    await writeFile(h.store.pathOf(past.header.sessionId), past.jsonl());
    await h.agent.request(acp.methods.agent.session.load, {
      sessionId: past.header.sessionId,
      cwd: h.cwd,
      mcpServers: [],
    });
    const answer = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId: past.header.sessionId,
      prompt: [{ type: "text", text: "two" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    // The strict replay matched: system prompt, the summary in place of "one"/"A", then "two".
    const request = (await h.store.readSession(past.header.sessionId)).events
      .filter((event) => event.type === "model/request")
      .at(-1);
    expect(request?.type === "model/request" && request.inputItems).toHaveLength(3);
  });

  it("without the compaction capability, a compaction is shown as a thought", async () => {
    harness = await acpHarness(() => scriptedProvider([]), {});
    const h = harness;
    const log = script({ cwd: h.cwd }).user("one").text("A").compact("S1").end().build();
    const { mkdir } = await import("node:fs/promises");
    await mkdir(h.store.sessionsDir, { recursive: true });
    await writeFile(h.store.pathOf(log.header.sessionId), log.jsonl());
    await h.agent.request(acp.methods.agent.session.load, {
      sessionId: log.header.sessionId,
      cwd: h.cwd,
      mcpServers: [],
    });
    expect(updatesOf(h.updates, "compaction_update")).toEqual([]);
    expect(updatesOf(h.updates, "agent_thought_chunk")[0]?.content).toMatchObject({
      text: expect.stringContaining("S1"),
    });
  });

  it("session/fork branches a session into a new one; the parent log is untouched", async () => {
    const { harness: h } = await start(
      script().user("one").text("A").user("two", { resumed: true }).text("B").end(),
    );
    const { sessionId } = await newSession(h);
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "one" }],
    });
    const parentBytes = await readFile(h.store.pathOf(sessionId), "utf8");
    const fork = await h.agent.request(acp.methods.agent.session.fork, {
      sessionId,
      cwd: h.cwd,
      mcpServers: [],
    });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.modes?.currentModeId).toBe("ask");
    const answer = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId: fork.sessionId,
      prompt: [{ type: "text", text: "two" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(await readFile(h.store.pathOf(sessionId), "utf8")).toBe(parentBytes);
    const child = await h.store.readSession(fork.sessionId);
    expect(child.header.parent).toMatchObject({ sessionId });
    expect(
      child
        .history()
        .filter((item) => item.type === "message")
        .map((item) => item.type === "message" && item.content),
    ).toEqual([DEFAULT_SYSTEM_PROMPT, "one", "A", "two", "B"]);
  });

  it("session/set_config_option switches the model of later runs; a bad id is refused", async () => {
    const used: string[] = [];
    const provider = createReplayProvider(
      script({ model: "gpt-4.1" }).user("hi").text("hello").end().build().recording(),
      {
        id: "openai",
      },
    );
    replay = provider;
    harness = await acpHarness((model) => {
      used.push(model);
      return provider;
    });
    const h = harness;
    const { sessionId } = await newSession(h);
    const changed = await h.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "openai:gpt-4.1",
    });
    expect(changed.configOptions[0]).toMatchObject({ id: "model", currentValue: "openai:gpt-4.1" });
    await expect(
      h.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "model",
        value: "bogus:x",
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("bogus") });
    await expect(
      h.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "colour",
        value: "red",
      }),
    ).rejects.toMatchObject({ code: -32602 });
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(used).toEqual(["openai:gpt-4.1"]);
    const session = await h.store.readSession(sessionId);
    expect(session.events.find((event) => event.type === "turn/start")).toMatchObject({
      model: "openai:gpt-4.1",
    });
  });

  it("session/resume repairs an interrupted session without replaying it", async () => {
    harness = await acpHarness(() => scriptedProvider([]), {});
    const h = harness;
    const log = script({ cwd: h.cwd }).user("one").toolCall("list_dir", {}).build();
    const { mkdir } = await import("node:fs/promises");
    await mkdir(h.store.sessionsDir, { recursive: true });
    await writeFile(h.store.pathOf(log.header.sessionId), log.jsonl());
    const resumed = await h.agent.request(acp.methods.agent.session.resume, {
      sessionId: log.header.sessionId,
      cwd: h.cwd,
    });
    // Its turn ran in `auto` elsewhere (the log was placed here): it opens in `ask`.
    expect(resumed.modes?.currentModeId).toBe("ask");
    expect(
      h.updates.filter(
        (notification) => notification.update.sessionUpdate !== "available_commands_update",
      ),
    ).toEqual([]);
    const session = await h.store.readSession(log.header.sessionId);
    expect(session.events.slice(-2)).toMatchObject([
      { type: "function_call_output", synthetic: true },
      { type: "turn/end", status: "interrupted" },
    ]);
  });

  it("session/close cancels a running prompt and forgets the session", async () => {
    const { h, sessionId, pending } = await runSlowCommand();
    await h.agent.request(acp.methods.agent.session.close, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
    await expect(
      h.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "x" }],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    expect((await h.store.readSession(sessionId)).events.at(-1)).toMatchObject({
      type: "turn/end",
      status: "cancelled",
    });
  });

  it("session/delete moves the log to the trash; the session is then unknown", async () => {
    const { harness: h } = await start(script());
    const { sessionId } = await newSession(h);
    await h.agent.request(acp.methods.agent.session.delete, { sessionId });
    await expect(readFile(h.store.pathOf(sessionId), "utf8")).rejects.toThrow();
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(path.join(h.home, "trash"))).join(" ")).toContain(sessionId);
    await expect(
      h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: h.cwd, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("session/list lists sessions of a cwd with titles", async () => {
    const { harness: h } = await start(script().user("My first question").text("a").end());
    const { sessionId } = await newSession(h);
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "My first question" }],
    });
    const listed = await h.agent.request(acp.methods.agent.session.list, { cwd: h.cwd });
    expect(listed.sessions).toEqual([
      expect.objectContaining({ sessionId, cwd: h.cwd, title: "My first question" }),
    ]);
    expect(
      (await h.agent.request(acp.methods.agent.session.list, { cwd: "/elsewhere" })).sessions,
    ).toEqual([]);
  });

  it("unknown sessions give resource-not-found errors with a clear message", async () => {
    const { harness: h } = await start(script());
    const missing = uuidv7();
    await expect(
      h.agent.request(acp.methods.agent.session.load, {
        sessionId: missing,
        cwd: h.cwd,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002, message: expect.stringContaining(missing) });
    await expect(
      h.agent.request(acp.methods.agent.session.prompt, {
        sessionId: missing,
        prompt: [{ type: "text", text: "x" }],
      }),
    ).rejects.toMatchObject({
      code: -32002,
      message: `Session ${missing} is not open in this agent: open it with session/load or session/resume first, or start one with session/new.`,
    });
    await expect(
      h.agent.request(acp.methods.agent.session.new, {
        cwd: path.join(h.cwd, "no-such-dir"),
        mcpServers: [],
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        `cwd ${path.join(h.cwd, "no-such-dir")} is not an existing directory`,
      ),
    });
    await expect(
      h.agent.request(acp.methods.agent.session.load, {
        sessionId: "../../etc/passwd",
        cwd: h.cwd,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("loads a session another process is writing to as it stands, and prompting it is busy", async () => {
    harness = await acpHarness(() => scriptedProvider([]), {});
    const h = harness;
    const log = script({ cwd: h.cwd }).user("one").toolCall("list_dir", {}).build();
    const { mkdir } = await import("node:fs/promises");
    await mkdir(h.store.sessionsDir, { recursive: true });
    await writeFile(h.store.pathOf(log.header.sessionId), log.jsonl());
    const before = await readFile(h.store.pathOf(log.header.sessionId), "utf8");
    const writer = await h.store.openWriter(log.header.sessionId);
    try {
      await h.agent.request(acp.methods.agent.session.load, {
        sessionId: log.header.sessionId,
        cwd: h.cwd,
        mcpServers: [],
      });
      // The live run is not interrupted: nothing was repaired or written.
      expect(await readFile(h.store.pathOf(log.header.sessionId), "utf8")).toBe(before);
      await expect(
        h.agent.request(acp.methods.agent.session.prompt, {
          sessionId: log.header.sessionId,
          prompt: [{ type: "text", text: "me too" }],
        }),
      ).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining("is busy"),
        data: { code: "SESSION_BUSY" },
      });
    } finally {
      await writer.close();
    }
    // Once the other writer is gone, the same load repairs the cut-off turn and succeeds.
    await h.agent.request(acp.methods.agent.session.load, {
      sessionId: log.header.sessionId,
      cwd: h.cwd,
      mcpServers: [],
    });
    expect(updatesOf(h.updates, "tool_call_update").at(-1)).toMatchObject({ status: "failed" });
  });

  it("an MCP server that does not start is told to the client once, and the prompt still answers", async () => {
    const { harness: h } = await start(script().user("hi").text("hello").end());
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: h.cwd,
      mcpServers: [{ name: "git hub", command: "/nonexistent/gh-mcp", args: [], env: [] }],
    });
    const answer = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    const notices = updatesOf(h.updates, "notice");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      severity: "warning",
      title: "MCP server git_hub did not start",
      description: expect.stringContaining("/nonexistent/gh-mcp"),
    });
  });

  it("routes file reads and writes through the client when it advertises fs", async () => {
    // The strict replay only matches if read_file returned the client's buffer text.
    const provider = createReplayProvider(
      script()
        .user("x")
        .toolCall("read_file", { path: "buf.txt" }, { callId: "r1" })
        .toolResult("unsaved buffer text")
        .toolCall("write_file", { path: "buf.txt", content: "new" }, { callId: "w1" })
        .toolResult("Wrote 3 bytes to buf.txt.")
        .text("ok")
        .end()
        .build()
        .recording(),
      { id: "openai" },
    );
    replay = provider;
    // Build a client that serves fs itself.
    const { createAcpAgent } = await import("../src/acp/acp-agent");
    const { createHost } = await import("@tapedeck/host");
    const temp = await testWorkspace("tapedeck-acpfs-");
    const root = temp.root;
    const toAgent = new TransformStream<Uint8Array, Uint8Array>();
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    const agentConnection = createAcpAgent({
      host: createHost({
        env: { TAPEDECK_HOME: path.join(root, "home") },
        providerFor: () => provider,
      }),
      log: () => undefined,
    }).connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
    const reads: string[] = [];
    const writes: { path: string; content: string }[] = [];
    const client = acp
      .client()
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        reads.push(params.path);
        return { content: "unsaved buffer text" };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        writes.push({ path: params.path, content: params.content });
        return {};
      })
      .connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
    await client.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [],
    });
    await client.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    await client.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "x" }],
    });
    expect(reads).toEqual([path.join(root, "buf.txt")]);
    expect(writes).toEqual([{ path: path.join(root, "buf.txt"), content: "new" }]);
    const { createSessionStore } = await import("@tapedeck/session-store");
    const session = await createSessionStore({ home: path.join(root, "home") }).readSession(
      sessionId,
    );
    expect(session.events.find((event) => event.type === "function_call_output")).toMatchObject({
      output: "unsaved buffer text",
    });
    client.close();
    agentConnection.close();
  });
});
