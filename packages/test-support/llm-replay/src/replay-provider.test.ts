import { fileURLToPath } from "node:url";
import { LlmError, type LlmRequest } from "@tapedeck/llm";
import { describe, expect, it } from "vitest";
import { collect, requestFor, streamError } from "../test/helpers";
import { ReplayExhaustedError, ReplayMismatchError, UnconsumedResponsesError } from "./errors";
import { loadRecording } from "./recording";
import { summarize } from "./replay-cursor";
import { createReplayProvider } from "./replay-provider";
import { scriptedRecording } from "./scripted-recording";

const log = scriptedRecording({ instructions: "Be brief." })
  .system("You are Tapedeck.")
  .user("What is in src?")
  .toolCall("list_files", { path: "src" })
  .toolResult("index.ts\nutil.ts")
  .text("Two files.")
  .end()
  .build();

function withUserText(request: LlmRequest, content: string): LlmRequest {
  return {
    ...request,
    input: request.input.map((item) =>
      item.type === "message" && item.role === "user" ? { ...item, content } : item,
    ),
  };
}

describe("refusals", () => {
  it("yields a recorded refusal on the response part, with no text delta", async () => {
    const refused = scriptedRecording()
      .user("Help me with something bad")
      .refusal("I can't help with that.")
      .end()
      .build();
    const provider = createReplayProvider(refused);
    expect(await collect(provider.stream(requestFor(refused, 0)))).toEqual([
      {
        type: "response",
        items: [],
        finishReason: "stop",
        usage: expect.any(Object),
        refusal: "I can't help with that.",
      },
    ]);
    expect(provider.recording.calls.map((call) => summarize(call))).toEqual([
      'refusal "I can\'t help with that."',
    ]);
  });
});

describe("match: strict (default)", () => {
  it("serves a request whose digest equals the recording", async () => {
    const provider = createReplayProvider(log);
    const parts = await collect(provider.stream(requestFor(log, 0)));
    expect(parts.at(-1)).toMatchObject({ type: "response", finishReason: "tool_calls" });
    expect(provider.consumed).toBe(1);
  });

  it("refuses changed instructions, naming the call and the log line", async () => {
    const provider = createReplayProvider(log);
    const { error } = await streamError(
      provider.stream({ ...requestFor(log, 0), instructions: "Be verbose." }),
    );
    expect(ReplayMismatchError.isInstance(error)).toBe(true);
    const mismatch = error as ReplayMismatchError;
    expect([mismatch.callIndex, mismatch.line]).toEqual([0, 5]);
    expect(mismatch.diff.map((entry) => entry.path)).toEqual(["instructions"]);
    expect(provider.consumed).toBe(0);
  });

  it("refuses a different tool set and a different model", async () => {
    const provider = createReplayProvider(log);
    const request = { ...requestFor(log, 0), model: "gpt-5", tools: [] };
    const { error } = await streamError(provider.stream(request));
    expect((error as ReplayMismatchError).diff).toEqual([
      { path: "model", recorded: "gpt-4.1-mini", actual: "gpt-5" },
      { path: "tools", recorded: ["list_files"], actual: [] },
    ]);
  });

  it("explains the difference in a readable message", async () => {
    const provider = createReplayProvider(log);
    await collect(provider.stream(requestFor(log, 0)));
    const request = requestFor(log, 1);
    const changed: LlmRequest = {
      ...request,
      input: [
        ...withUserText(request, "What is in lib?").input.slice(0, -1),
        { type: "function_call_output", callId: "call_other", output: "lib.ts", isError: false },
        { type: "message", role: "user", content: "Also count them." },
      ],
    };
    const { error } = await streamError(provider.stream(changed));
    expect(
      (error as Error).message.replace(/"call_[0-9a-f]{24}"/g, '"<CALL ID>"'),
    ).toMatchInlineSnapshot(`
        "Replay mismatch on model call 2 of 2 (requestId req_02d6cc9f9a3660893e9cf7bc, log line 11), match "strict": the request differs from the recording.
          input[1].content: recorded "What is in src?" ≠ actual "What is in lib?"
          input[3].callId: recorded "<CALL ID>" ≠ actual "call_other"
          input[3].output: recorded "index.ts\\nutil.ts" ≠ actual "lib.ts"
          input[4]: only in the actual request {"type":"message","role":"user","content":"Also count them."}"
      `);
  });
});

describe("match: loose", () => {
  it("ignores earlier history and instructions but not the latest input", async () => {
    const provider = createReplayProvider(log, { match: "loose" });
    await collect(provider.stream({ ...requestFor(log, 0), instructions: "Other prompt." }));
    const second = requestFor(log, 1);
    const { error } = await streamError(
      provider.stream({
        ...second,
        input: second.input.map((item) =>
          item.type === "function_call_output" ? { ...item, output: "changed" } : item,
        ),
      }),
    );
    expect((error as ReplayMismatchError).diff).toEqual([
      { path: "latestInput[0].output", recorded: "index.ts\nutil.ts", actual: "changed" },
    ]);
    const parts = await collect(provider.stream(withUserText(second, "rephrased earlier turn")));
    expect(parts.at(-1)).toMatchObject({ items: [{ content: "Two files." }] });
  });

  it("still checks the model and tool names", async () => {
    const provider = createReplayProvider(log, { match: "loose" });
    const { error } = await streamError(
      provider.stream({
        ...requestFor(log, 0),
        tools: [{ name: "cat", description: "", parameters: {} }],
      }),
    );
    expect((error as ReplayMismatchError).diff.map((entry) => entry.path)).toEqual(["tools"]);
  });
});

describe("match: off", () => {
  it("serves calls in order whatever the request", async () => {
    const provider = createReplayProvider(log, { match: "off" });
    const anything: LlmRequest = { model: "x", input: [], tools: [] };
    expect((await collect(provider.stream(anything))).at(-1)).toMatchObject({
      finishReason: "tool_calls",
    });
    expect((await collect(provider.stream(anything))).at(-1)).toMatchObject({
      finishReason: "stop",
    });
  });
});

describe("exhaustion and leftovers", () => {
  it("throws ReplayExhaustedError on a call past the end, never wrapping around", async () => {
    const provider = createReplayProvider(log, { match: "off" });
    const request: LlmRequest = {
      model: "m",
      input: [{ type: "message", role: "user", content: "more?" }],
      tools: [],
    };
    await collect(provider.stream(request));
    await collect(provider.stream(request));
    const { error } = await streamError(provider.stream(request));
    expect(ReplayExhaustedError.isInstance(error)).toBe(true);
    expect((error as ReplayExhaustedError).request).toBe(request);
    expect((error as Error).message).toMatch(
      /holds 2 model calls, all used, and model call 3 arrived/,
    );
  });

  it("lists the calls nobody asked for", async () => {
    const provider = createReplayProvider(log);
    await collect(provider.stream(requestFor(log, 0)));
    let error: unknown;
    try {
      provider.assertAllConsumed();
    } catch (caught) {
      error = caught;
    }
    expect(UnconsumedResponsesError.isInstance(error)).toBe(true);
    expect((error as UnconsumedResponsesError).unconsumed).toEqual([
      {
        callIndex: 1,
        requestId: expect.stringMatching(/^req_/),
        line: 11,
        summary: 'text "Two files."',
      },
    ]);
    expect((error as Error).message).toMatch(
      /^1 of 2 recorded model calls were never requested:\n {2}call 2 /,
    );
  });
});

describe("recorded errors and timing", () => {
  const failing = scriptedRecording()
    .user("Hi")
    .modelError("RATE_LIMIT", "Rate limit reached for gpt-4.1-mini", { partialText: "Hel" })
    .end("failed")
    .build();

  it("replays a recorded error after the recorded chunks", async () => {
    const provider = createReplayProvider(failing);
    const { error, parts } = await streamError(provider.stream(requestFor(failing, 0)));
    expect(parts).toEqual([{ type: "text-delta", text: "Hel" }]);
    expect(LlmError.isInstance(error)).toBe(true);
    expect([(error as LlmError).code, (error as Error).message]).toEqual([
      "RATE_LIMIT",
      "Rate limit reached for gpt-4.1-mini",
    ]);
  });

  it("replays a cancelled call as an abort after the text the person saw", async () => {
    const cancelled = scriptedRecording()
      .user("Hi")
      .modelCancelled("Hel lo")
      .end("cancelled")
      .build();
    const { error, parts } = await streamError(
      createReplayProvider(cancelled).stream(requestFor(cancelled, 0)),
    );
    expect(parts).toHaveLength(2);
    expect((error as LlmError).code).toBe("ABORTED");
  });

  it("paces chunks by the recorded timestamps times the scale", async () => {
    const slow = scriptedRecording({ chunkIntervalMs: 100 })
      .user("Hi")
      .text("a b c d")
      .end()
      .build();
    const provider = createReplayProvider(slow, { timing: { scale: 0.5 } });
    const started = performance.now();
    await collect(provider.stream(requestFor(slow, 0)));
    // 4 chunk gaps of 100 ms at half speed, plus 1 ms gaps around them.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    expect(() => createReplayProvider(slow, { timing: { scale: -1 } })).toThrow(/scale must be/);
  });

  it("stops waiting when the signal aborts", async () => {
    const slow = scriptedRecording({ chunkIntervalMs: 10_000 })
      .user("Hi")
      .text("a b")
      .end()
      .build();
    const provider = createReplayProvider(slow, { timing: "recorded" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const { error } = await streamError(
      provider.stream(requestFor(slow, 0), { signal: controller.signal }),
    );
    expect((error as LlmError).code).toBe("ABORTED");
  });
});

describe("logs written before codes became UPPER_SNAKE", () => {
  const legacy = fileURLToPath(
    new URL("./__fixtures__/model-error-lowercase-codes.jsonl", import.meta.url),
  );

  it("replays a recorded `rate_limit` as RATE_LIMIT, like a new log's", async () => {
    const recording = loadRecording(legacy);
    expect(recording.calls[0]?.outcome).toMatchObject({ type: "error", code: "RATE_LIMIT" });
    const call = recording.calls[0]!;
    const provider = createReplayProvider(recording);
    const { error, parts } = await streamError(
      provider.stream({ model: call.model, input: call.input, tools: [] }),
    );
    expect(parts.map((part) => (part.type === "text-delta" ? part.text : "")).join("")).toBe(
      "The README",
    );
    expect([(error as LlmError).code, (error as LlmError).retryable]).toEqual(["RATE_LIMIT", true]);
  });
});
