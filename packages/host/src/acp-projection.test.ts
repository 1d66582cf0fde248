import { eventLogBuilder } from "@tapedeck/session/testing";
import { describe, expect, it } from "vitest";
import { acpUpdatesOfLog } from "./acp-projection";

const options = { tools: [], cwd: "/w", compactionUpdates: true, contextWindow: 1000 };

function modelCall(
  log: ReturnType<typeof eventLogBuilder>,
  requestId: string,
  chunks: string[],
  extra: { purpose?: "compaction"; toolNames?: string[] } = { toolNames: ["read_file"] },
) {
  const runId = log.events.at(-1)?.runId ?? "r";
  log.push({
    type: "model/request",
    runId,
    requestId,
    provider: "openai",
    model: "m",
    inputDigest: "d",
    toolsDigest: "t",
    inputItems: [],
    ...extra,
  });
  for (const [index, text] of chunks.entries()) {
    log.push({ type: "assistant/chunk", runId, requestId, index, delta: { text } });
  }
  log.push({
    type: "model/response",
    runId,
    requestId,
    finishReason: "stop",
    usage: { inputTokens: 10, outputTokens: chunks.length },
  });
}

describe("acpUpdatesOfLog", () => {
  it("shows streamed text once, joined, and an unstreamed assistant message whole", () => {
    const log = eventLogBuilder().system("s").turn().user("hi");
    modelCall(log, "q1", ["Hel", "lo"]);
    log.assistant("Hello");
    modelCall(log, "q2", []);
    log.assistant("I can't help with that.").end();
    expect(acpUpdatesOfLog(log.events, options)).toEqual([
      {
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: "hi" },
        messageId: log.events[2]?.runId,
      },
      {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "Hello" },
        messageId: "q1",
      },
      { sessionUpdate: "usage_update", used: 12, size: 1000 },
      { sessionUpdate: "usage_update", used: 10, size: 1000 },
      {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "I can't help with that." },
        messageId: "q2",
      },
    ]);
  });

  it("never shows a compaction's summary call as the agent's words, with or without its purpose", () => {
    for (const extra of [{ purpose: "compaction" as const }, { toolNames: [] }]) {
      const log = eventLogBuilder().system("s").turn().user("a");
      modelCall(log, "c1", ["SUM", "MARY"], extra);
      log.compact("SUMMARY", [3]).end();
      expect(acpUpdatesOfLog(log.events, options).map((update) => update.sessionUpdate)).toEqual([
        "user_message_chunk",
        "compaction_update",
      ]);
    }
  });

  it("shows a refusal's words even after some of the request's text was streamed", () => {
    const log = eventLogBuilder().system("s").turn().user("open the neighbour's door");
    modelCall(log, "q1", ["Let me "]);
    // The same call's response, as the agent logs a refusal: the words also as a message.
    const response = log.events.at(-1);
    if (response?.type === "model/response") response.refusal = "I can't help with that.";
    log.assistant("Let me ");
    log.assistant("I can't help with that.").end();
    const texts = acpUpdatesOfLog(log.events, options).flatMap((update) =>
      update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
    );
    expect(texts).toEqual(["Let me ", "I can't help with that."]);
  });
});
