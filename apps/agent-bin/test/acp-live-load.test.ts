import * as acp from "@agentclientprotocol/sdk/unstable";
import { joinTextChunks } from "@tapedeck/host";
import { createReplayProvider } from "@tapedeck/llm-replay";
import { agentScript } from "@tapedeck/test-harness";
import { afterEach, expect, it } from "vitest";
import { type AcpHarness, acpHarness } from "./acp-harness";

const harnesses: AcpHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0).reverse()) await harness.close();
});

/** Updates that are not a projection of log events: a session's title, commands, tool starts. */
const transient = (update: acp.SessionUpdate) =>
  update.sessionUpdate === "session_info_update" ||
  update.sessionUpdate === "available_commands_update" ||
  (update.sessionUpdate === "tool_call_update" && update.status === "in_progress");

it("session/load shows the same updates the live turns sent (one projection of the log)", async () => {
  const recording = agentScript()
    .user("write it")
    .text("I will write it.", { chunks: ["I will ", "write it."] })
    .toolCall("write_file", { path: "out.txt", content: "hello" }, { callId: "w1" })
    .toolResult("Wrote 5 bytes to out.txt.")
    .text("Wrote it.", { chunks: ["Wrote ", "it."] })
    .user("now fail")
    .toolCall("run_command", { command: "exit 3" }, { callId: "c2" })
    .toolResult("Error: exit code 3\n", { isError: true })
    .text("It failed.")
    .end()
    .build()
    .recording();
  const provider = createReplayProvider(recording, { id: "openai" });
  const live = await acpHarness(() => provider, { session: { compaction: {} } });
  harnesses.push(live);
  const { sessionId } = await live.agent.request(acp.methods.agent.session.new, {
    cwd: live.cwd,
    mcpServers: [],
  });
  await live.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
  for (const text of ["write it", "now fail"]) {
    const response = await live.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    expect(response.stopReason).toBe("end_turn");
  }
  provider.assertAllConsumed();
  const liveUpdates = live.updates.map((notification) => notification.update);
  // The live turns streamed text chunk by chunk (more chunks than the 3 messages) and started
  // each tool.
  expect(
    liveUpdates.filter((update) => update.sessionUpdate === "agent_message_chunk").length,
  ).toBeGreaterThan(3);
  expect(liveUpdates.filter(transient).map((update) => update.sessionUpdate)).toContain(
    "tool_call_update",
  );

  const loader = await acpHarness(() => provider, { session: { compaction: {} } }, live);
  harnesses.push(loader);
  await loader.agent.request(acp.methods.agent.session.load, {
    sessionId,
    cwd: live.cwd,
    mcpServers: [],
  });
  const loaded = loader.updates.map((notification) => notification.update);
  // The load adds the user's own messages (the editor showed them as typed), one per prompt.
  expect(
    loaded.flatMap((update) =>
      update.sessionUpdate === "user_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
    ),
  ).toEqual(["write it", "now fail"]);
  const shownLive = joinTextChunks(liveUpdates.filter((update) => !transient(update)));
  const shownOnLoad = loaded.filter(
    (update) => !transient(update) && update.sessionUpdate !== "user_message_chunk",
  );
  expect(shownOnLoad.map((update) => update.sessionUpdate)).toEqual([
    "agent_message_chunk",
    "usage_update",
    "tool_call",
    "tool_call_update",
    "agent_message_chunk",
    "usage_update",
    "usage_update",
    "tool_call",
    "tool_call_update",
    "agent_message_chunk",
    "usage_update",
  ]);
  expect(shownOnLoad).toEqual(shownLive);
});
