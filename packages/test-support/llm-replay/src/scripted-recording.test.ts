import { requestDigest, toolsDigest } from "@tapedeck/llm";
import { replayEvents } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { collect, requestFor } from "../test/helpers";
import { createReplayProvider } from "./replay-provider";
import { splitArguments, splitText } from "./scripted-materializer";
import { scriptedRecording } from "./scripted-recording";
import { scriptedTools } from "./scripted-tools";

const script = () =>
  scriptedRecording({ instructions: "Be brief." })
    .system("You are Tapedeck.")
    .user("What is in src?")
    .text("Let me look.")
    .toolCall("list_files", { path: "src" })
    .toolResult("index.ts\nutil.ts")
    .text("Two files: index.ts and util.ts.")
    .end();

describe("scriptedRecording", () => {
  it("writes a log that replay-validates, with the events the agent writes", () => {
    const log = script().build();
    replayEvents(log.header, log.events);
    expect(log.events.map((event) => event.type)).toEqual([
      "message",
      "turn/start",
      "message",
      "model/request",
      ...Array(3).fill("assistant/chunk"),
      ...Array(2).fill("assistant/chunk"),
      "model/response",
      "message",
      "function_call",
      "function_call_output",
      "model/request",
      ...Array(5).fill("assistant/chunk"),
      "model/response",
      "message",
      "turn/end",
    ]);
  });

  it("records the digests, input seqs and 0-based chunk indexes of each model call", () => {
    const log = script().build();
    const requests = log.events.filter((event) => event.type === "model/request");
    expect(requests.map((event) => event.inputItems)).toEqual([
      [1, 3],
      [1, 3, 11, 12, 13],
    ]);
    const [first, second] = log.recording().calls;
    expect(first!.inputDigest).toBe(requestDigest(requestFor(log, 0)));
    expect(second!.inputDigest).toBe(requestDigest(requestFor(log, 1)));
    expect(first!.toolsDigest).toBe(toolsDigest(scriptedTools(["list_files"])));
    const indexes = log.events.flatMap((event) =>
      event.type === "assistant/chunk" && event.requestId === first!.requestId ? [event.index] : [],
    );
    expect(indexes).toEqual([0, 1, 2, 3, 4]);
  });

  it("fragments tool-call arguments, naming the tool on the first fragment only", () => {
    const log = script().build();
    const fragments = log.recording().calls[0]!.chunks.filter((chunk) => "callId" in chunk.delta);
    expect(fragments.map((chunk) => chunk.delta)).toEqual([
      { callId: expect.any(String), name: "list_files", arguments: '{"path":' },
      { callId: expect.any(String), arguments: '"src"}' },
    ]);
  });

  it("gives the same bytes every time", () => {
    expect(script().build().jsonl()).toBe(script().build().jsonl());
  });

  it("round-trips: replaying the log yields the same chunks and items", async () => {
    const log = script().build();
    const provider = createReplayProvider(log);
    const first = await collect(provider.stream(requestFor(log, 0)));
    expect(first.filter((part) => part.type === "text-delta").map((part) => part.text)).toEqual([
      "Let ",
      "me ",
      "look.",
    ]);
    const callId = log.events.find((event) => event.type === "function_call")!.callId;
    expect(first.at(-1)).toEqual({
      type: "response",
      items: [
        { type: "message", role: "assistant", content: "Let me look." },
        { type: "function_call", callId, name: "list_files", arguments: '{"path":"src"}' },
      ],
      finishReason: "tool_calls",
      usage: { inputTokens: expect.any(Number), outputTokens: 5 },
    });
    const second = await collect(provider.stream(requestFor(log, 1)));
    expect(second.at(-1)).toMatchObject({
      items: [{ type: "message", role: "assistant", content: "Two files: index.ts and util.ts." }],
      finishReason: "stop",
    });
    provider.assertAllConsumed();
  });

  it("leaves the turn open with a pending call for an interrupted run", () => {
    const log = scriptedRecording()
      .user("Run the tests")
      .toolCall("run", { cmd: "pnpm test" })
      .build();
    const session = replayEvents(log.header, log.events);
    expect(session.openTurn).not.toBeNull();
    expect(session.pendingCalls.map((call) => call.name)).toEqual(["run"]);
  });

  it("builds a fork whose events continue after the parent's fork point", () => {
    const parent = script().build();
    const fork = scriptedRecording({ parent: { log: parent, atSeq: 22 } })
      .user("And in test?")
      .text("Nothing.")
      .end()
      .build();
    expect(fork.header.parent).toEqual({ sessionId: parent.header.sessionId, seq: 22 });
    expect(fork.header.sessionId).not.toBe(parent.header.sessionId);
    expect(fork.events[0]!.seq).toBe(23);
    const session = replayEvents(fork.header, fork.events, { parentEvents: fork.parentEvents! });
    expect(session.history().at(-1)).toEqual({
      type: "message",
      role: "assistant",
      content: "Nothing.",
    });
  });

  it("names the failing step of an impossible script", () => {
    expect(() => scriptedRecording().user("hi").toolResult("x").build()).toThrow(
      "scriptedRecording step 2 (.toolResult): no function call is waiting for an output",
    );
    expect(() => scriptedRecording().user("hi").toolCall("ls", {}).end().build()).toThrow(
      /step 3 \(.end\("completed"\)\): the turn cannot end while calls have no output/,
    );
    expect(() => scriptedRecording().text("hi").build()).toThrow(/needs an open turn/);
    expect(() =>
      scriptedRecording()
        .user("a")
        .text("hello", { chunks: ["he", "lo"] })
        .build(),
    ).toThrow(/do not join/);
    expect(() => scriptedRecording().user("a").refusal("").build()).toThrow(
      "scriptedRecording step 2 (.refusal): a refusal needs the model's words (got an empty string)",
    );
  });

  it("writes a refusal as the agent does: model/response with refusal, then the message", () => {
    const log = scriptedRecording()
      .user("Help me with something bad")
      .refusal("I can't help with that.")
      .user("Then say hi")
      .text("Hi.")
      .end()
      .build();
    replayEvents(log.header, log.events);
    const response = log.events.find((event) => event.type === "model/response");
    expect(response).toMatchObject({ finishReason: "stop", refusal: "I can't help with that." });
    expect(log.events.slice(2, 5).map((event) => event.type)).toEqual([
      "model/request",
      "model/response",
      "message",
    ]);
    expect(log.events[4]).toMatchObject({ role: "assistant", content: "I can't help with that." });
    // The logged message is the refusal, not output to replay as text; the next call sees it.
    const [refused, next] = log.recording().calls;
    expect(refused!.outcome).toMatchObject({ items: [], refusal: "I can't help with that." });
    expect(next!.input).toContainEqual({
      type: "message",
      role: "assistant",
      content: "I can't help with that.",
    });
  });
});

describe("chunking", () => {
  it("splits words with their spaces and CJK text by one or two characters", () => {
    expect(splitText("Hello big world")).toEqual(["Hello ", "big ", "world"]);
    expect(splitText("你好世界。")).toEqual(["你好", "世界", "。"]);
  });

  it("splits arguments on code points, never inside a surrogate pair", () => {
    expect(splitArguments('{"q":"🙂🙂🙂🙂🙂🙂"}').join("")).toBe('{"q":"🙂🙂🙂🙂🙂🙂"}');
    expect(splitArguments('{"q":"🙂🙂🙂🙂🙂🙂"}')[0]).toBe('{"q":"🙂🙂');
  });
});
