import type { LlmProvider, LlmStreamPart } from "@tapedeck/llm";
import { createReplayProvider, scriptedRecording } from "@tapedeck/llm-replay";
import type { SessionEvent } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SYSTEM_PROMPT,
  defaultTools,
  type LiveNotice,
  runAgent,
  toolDefinitions,
} from "../src/index";
import { sandbox } from "./helpers";

const model = "openai:gpt-4.1-mini";
const refusal = "I can't help with that.";

async function agentIn(provider: LlmProvider) {
  const box = await sandbox();
  const seen: LiveNotice[] = [];
  const run = (input: string, sessionId?: string) =>
    runAgent({
      store: box.store,
      provider,
      model,
      policy: { approval: "auto" },
      cwd: box.cwd,
      tools: defaultTools(),
      input,
      onNotice: (notice) => seen.push(notice),
      ...(sessionId === undefined ? {} : { sessionId }),
    });
  const events = async (sessionId: string): Promise<SessionEvent[]> => [
    ...(await box.store.readSession(sessionId)).events,
  ];
  return { run, seen, events, store: box.store };
}

describe("a refused model call", () => {
  // The agent's own seed and tools, so every request must match the recording strictly.
  const log = scriptedRecording({ tools: toolDefinitions(defaultTools()) })
    .system(DEFAULT_SYSTEM_PROMPT)
    .user("How do I get into my neighbour's flat?")
    .refusal(refusal)
    .user("Then tell me what a JSONL file is.")
    .text("One JSON value per line.")
    .end()
    .build();

  it("records the refusal, logs it as the assistant's message and stops with refusal", async () => {
    const replay = createReplayProvider(log.recording(), { id: "openai" });
    const agent = await agentIn(replay);
    const result = await agent.run("How do I get into my neighbour's flat?");
    expect(result).toMatchObject({ status: "completed", stopReason: "refusal" });

    const events = await agent.events(result.sessionId);
    expect(events.slice(3).map((event) => event.type)).toEqual([
      "model/request",
      "model/response",
      "message",
      "turn/end",
    ]);
    expect(events[4]).toMatchObject({ finishReason: "stop", refusal });
    expect(events[5]).toMatchObject({ role: "assistant", content: refusal });
    expect(events[6]).toMatchObject({ status: "completed" });

    // The next turn's request carries the refusal as history (the strict digest matches).
    const next = await agent.run("Then tell me what a JSONL file is.", result.sessionId);
    expect(next).toMatchObject({ status: "completed", stopReason: "end_turn" });
    replay.assertAllConsumed();
  });

  it("writes the log the scripted recording describes, so it replays in turn", async () => {
    const replay = createReplayProvider(log.recording(), { id: "openai" });
    const agent = await agentIn(replay);
    const first = await agent.run("How do I get into my neighbour's flat?");
    await agent.run("Then tell me what a JSONL file is.", first.sessionId);
    const recorded = await agent.events(first.sessionId);
    const strip = (events: readonly SessionEvent[]) =>
      events.map(({ type, ...rest }) => ({
        type,
        ...("refusal" in rest ? { refusal: rest.refusal } : {}),
        ...("content" in rest ? { content: rest.content } : {}),
        ...("finishReason" in rest ? { finishReason: rest.finishReason } : {}),
      }));
    expect(strip(recorded)).toEqual(strip(log.events));

    // What the agent wrote is itself a recording that replays the refusal.
    const { header } = await agent.store.readSession(first.sessionId);
    const again = createReplayProvider({ header, events: recorded }, { id: "openai" });
    const rerun = await agentIn(again);
    const replayed = await rerun.run("How do I get into my neighbour's flat?");
    expect(replayed.stopReason).toBe("refusal");
  });

  it("ends the turn without running calls the model asked for next to its refusal", async () => {
    const provider: LlmProvider = {
      id: "scripted",
      async *stream(): AsyncGenerator<LlmStreamPart> {
        const args = JSON.stringify({ command: "rm -rf build" });
        yield { type: "tool-call-delta", callId: "c1", name: "run_command", arguments: args };
        yield {
          type: "response",
          items: [{ type: "function_call", callId: "c1", name: "run_command", arguments: args }],
          finishReason: "tool_calls",
          refusal,
        };
      },
    };
    const agent = await agentIn(provider);
    const result = await agent.run("Clean up");
    expect(result).toMatchObject({ status: "completed", stopReason: "refusal" });
    const events = await agent.events(result.sessionId);
    expect(events.find((event) => event.type === "function_call_output")).toMatchObject({
      callId: "c1",
      isError: true,
      output: "Error: the run ended before this tool call finished.",
    });
    expect(agent.seen).toEqual([]);
  });
});
