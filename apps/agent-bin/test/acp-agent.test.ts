import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type ScriptStep, scriptedProvider } from "@tapedeck/agent/testing";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpHarness, acpHarness, updatesOf } from "./acp-harness";

let harness: AcpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(steps: ScriptStep[], capabilities: acp.ClientCapabilities = {}) {
  const provider = scriptedProvider(steps);
  harness = await acpHarness(() => provider, capabilities);
  return { harness, provider };
}

async function newSession(h: AcpHarness) {
  return h.agent.request(acp.methods.agent.session.new, { cwd: h.cwd, mcpServers: [] });
}

describe("ACP agent (in-process)", () => {
  it("initialize advertises loadSession, session capabilities and agent info", async () => {
    const provider = scriptedProvider([]);
    const toAgent = new TransformStream<Uint8Array, Uint8Array>();
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    const { createAcpAgent } = await import("../src/acp/acp-agent");
    const { createSessionStore } = await import("@tapedeck/session-store");
    const { resolveConfig } = await import("@tapedeck/agent");
    const agentConnection = createAcpAgent({
      store: createSessionStore({ home: "/nonexistent-tapedeck-home" }),
      config: resolveConfig({}),
      providerFor: () => provider,
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
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
      agentInfo: { name: "tapedeck" },
    });
    client.close();
    agentConnection.close();
  });

  it("session/new answers with modes and the model option; prompt streams text and ends end_turn", async () => {
    const { harness: h } = await start([{ text: "Hello from Tapedeck", chunks: 3 }]);
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
    const { harness: h } = await start([
      {
        calls: [
          { callId: "w1", name: "write_file", arguments: { path: "out.txt", content: "hello" } },
        ],
      },
      { text: "Wrote it." },
    ]);
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
        title: "Write out.txt",
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
    const { harness: h } = await start([
      {
        calls: [
          { callId: "w1", name: "write_file", arguments: { path: "out.txt", content: "hello" } },
        ],
      },
      { text: "OK, not writing." },
    ]);
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
    const { harness: h } = await start([
      { calls: [{ callId: "c1", name: "run_command", arguments: { command: "echo hi" } }] },
      { text: "done" },
    ]);
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
    const { harness: h } = await start([
      { calls: [{ callId: "s1", name: "run_command", arguments: { command: "sleep 20" } }] },
    ]);
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
    const { harness: h } = await start(
      [
        { calls: [{ callId: "l1", name: "list_dir", arguments: {} }] },
        { text: "first answer" },
        { text: "SUMMARY" },
        { text: "second answer" },
      ],
      { session: { compaction: {} } },
    );
    await writeFile(path.join(h.cwd, "file.txt"), "x");
    const { sessionId } = await newSession(h);
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "list" }],
    });
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "/compact" }],
    });
    await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    // A second client loads the session from the files alone.
    const second = await acpHarness(
      () => scriptedProvider([]),
      { session: { compaction: {} } },
      { home: h.home, cwd: h.cwd },
    );
    try {
      const loaded = await second.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: h.cwd,
        mcpServers: [],
      });
      expect(loaded.modes?.currentModeId).toBe("ask");
      const kinds = second.updates.map((notification) => notification.update.sessionUpdate);
      expect(kinds).toEqual([
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "user_message_chunk",
        "compaction_update",
        "user_message_chunk",
        "agent_message_chunk",
        "session_info_update",
      ]);
      expect(updatesOf(second.updates, "tool_call_update")[0]).toMatchObject({
        toolCallId: "l1",
        status: "completed",
      });
      expect(updatesOf(second.updates, "compaction_update")[0]).toMatchObject({
        status: "completed",
        summary: [{ type: "text", text: "SUMMARY" }],
      });
      expect(updatesOf(second.updates, "session_info_update")[0]).toMatchObject({ title: "list" });
    } finally {
      await second.close();
    }
  });

  it("session/list lists sessions of a cwd with titles", async () => {
    const { harness: h } = await start([{ text: "a" }]);
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
    const { harness: h } = await start([]);
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
    ).rejects.toMatchObject({ code: -32002 });
    await expect(
      h.agent.request(acp.methods.agent.session.load, {
        sessionId: "../../etc/passwd",
        cwd: h.cwd,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("mcpServers are not connected but the client is told so", async () => {
    const { harness: h } = await start([]);
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: h.cwd,
      mcpServers: [{ name: "github", command: "gh-mcp", args: [], env: [] }],
    });
    for (let tries = 0; tries < 50 && updatesOf(h.updates, "notice").length === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(
      h.updates.find((notification) => notification.sessionId === sessionId)?.update,
    ).toMatchObject({
      sessionUpdate: "notice",
      severity: "warning",
      description: expect.stringContaining("github"),
    });
  });

  it("routes file reads and writes through the client when it advertises fs", async () => {
    const provider = scriptedProvider([
      { calls: [{ callId: "r1", name: "read_file", arguments: { path: "buf.txt" } }] },
      {
        calls: [
          { callId: "w1", name: "write_file", arguments: { path: "buf.txt", content: "new" } },
        ],
      },
      { text: "ok" },
    ]);
    harness = await acpHarness(() => provider, {});
    await harness.close();
    // Build a client that serves fs itself.
    const { createAcpAgent } = await import("../src/acp/acp-agent");
    const { createSessionStore } = await import("@tapedeck/session-store");
    const { resolveConfig, defaultTools } = await import("@tapedeck/agent");
    const { mkdtemp, realpath } = await import("node:fs/promises");
    const os = await import("node:os");
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "tapedeck-acpfs-")));
    const toAgent = new TransformStream<Uint8Array, Uint8Array>();
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    const agentConnection = createAcpAgent({
      store: createSessionStore({ home: path.join(root, "home") }),
      config: resolveConfig({}),
      providerFor: () => provider,
      toolsFor: () => defaultTools(),
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
    const session = await createSessionStore({ home: path.join(root, "home") }).readSession(
      sessionId,
    );
    expect(session.events.find((event) => event.type === "function_call_output")).toMatchObject({
      output: "unsaved buffer text",
    });
    client.close();
    agentConnection.close();
    const { rm } = await import("node:fs/promises");
    await rm(root, { recursive: true, force: true });
  });
});
