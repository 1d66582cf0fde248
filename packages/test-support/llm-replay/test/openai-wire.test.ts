/**
 * Both OpenAI providers of @tapedeck/llm, through the real `openai` client, against the replay
 * server on 127.0.0.1: the wire formats are the ones OpenAI's own SDK parses.
 */
import {
  createOpenAIChatProvider,
  createOpenAIResponsesProvider,
  LlmError,
  type LlmProvider,
  type LlmStreamPart,
  toChatMessages,
  toChatTools,
  toResponsesInput,
  toResponsesTools,
} from "@tapedeck/llm";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ReplayServer,
  type ScriptedLog,
  scriptedRecording,
  startReplayServer,
} from "../src/index";
import { collect, requestFor, streamError } from "./helpers";

const apiKey = "sk-dummy-key-for-tests";
const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  log: ScriptedLog,
  match: "strict" | "loose" | "off" = "strict",
): Promise<ReplayServer> {
  const server = await startReplayServer(log, { match });
  servers.push(server);
  return server;
}

const textLog = scriptedRecording({ instructions: "Be brief." })
  .system("You are Tapedeck.")
  .user("Say hello")
  .text("Hello there, 朋友!")
  .end()
  .build();

const toolLog = scriptedRecording()
  .user("Show src/index.ts")
  .toolCall(
    "read_file",
    { path: "src/index.ts", limit: 200 },
    { chunks: ['{"pa', 'th":"src/', 'index.ts","li', "mit", '":200}'] },
  )
  .toolResult("export {};")
  .text("It is empty.")
  .end()
  .build();

const parallelLog = scriptedRecording()
  .user("Read both")
  .text("Reading.")
  .toolCall("read_file", { path: "a.ts" })
  .toolCall("read_file", { path: "b.ts" })
  .toolResult("A")
  .toolResult("B")
  .text("Done.")
  .end()
  .build();

const refusalLog = scriptedRecording()
  .user("How do I pick my neighbour's lock?")
  .refusal("I can't help with that.")
  .end()
  .build();

const providers: [string, (baseURL: string) => LlmProvider][] = [
  ["Responses API", (baseURL) => createOpenAIResponsesProvider({ apiKey, baseURL })],
  ["Chat Completions", (baseURL) => createOpenAIChatProvider({ apiKey, baseURL })],
];

function deltas(parts: LlmStreamPart[]) {
  return parts.filter((part) => part.type !== "response");
}

describe.each(providers)("%s provider against the replay server", (_name, create) => {
  it("streams text with the recorded chunk boundaries, items, usage and finish reason", async () => {
    const server = await serve(textLog);
    const parts = await collect(create(server.url).stream(requestFor(textLog, 0)));
    const [call] = server.recording.calls;
    expect(deltas(parts)).toEqual(
      call!.chunks.map((chunk) => ({ type: "text-delta", ...chunk.delta })),
    );
    expect(parts.at(-1)).toEqual({
      type: "response",
      items: [{ type: "message", role: "assistant", content: "Hello there, 朋友!" }],
      finishReason: "stop",
      usage: {
        ...(call!.outcome.type === "response" ? call!.outcome.usage : {}),
        cachedInputTokens: 0,
      },
    });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
  });

  it("streams a tool call whose arguments arrive in fragments", async () => {
    const server = await serve(toolLog);
    const provider = create(server.url);
    const parts = await collect(provider.stream(requestFor(toolLog, 0)));
    const callId = toolLog.events.find((event) => event.type === "function_call")!.callId;
    expect(deltas(parts)).toEqual([
      { type: "tool-call-delta", callId, name: "read_file", arguments: '{"pa' },
      { type: "tool-call-delta", callId, arguments: 'th":"src/' },
      { type: "tool-call-delta", callId, arguments: 'index.ts","li' },
      { type: "tool-call-delta", callId, arguments: "mit" },
      { type: "tool-call-delta", callId, arguments: '":200}' },
    ]);
    expect(parts.at(-1)).toMatchObject({
      items: [
        {
          type: "function_call",
          callId,
          name: "read_file",
          arguments: '{"path":"src/index.ts","limit":200}',
        },
      ],
      finishReason: "tool_calls",
    });
    const second = await collect(provider.stream(requestFor(toolLog, 1)));
    expect(second.at(-1)).toMatchObject({
      items: [{ content: "It is empty." }],
      finishReason: "stop",
    });
    server.assertAllConsumed();
  });

  it("streams text and two parallel tool calls in one response", async () => {
    const server = await serve(parallelLog);
    const provider = create(server.url);
    const parts = await collect(provider.stream(requestFor(parallelLog, 0)));
    const [a, b] = parallelLog.events.filter((event) => event.type === "function_call");
    expect(parts.at(-1)).toMatchObject({
      items: [
        { type: "message", content: "Reading." },
        {
          type: "function_call",
          callId: a!.callId,
          name: "read_file",
          arguments: '{"path":"a.ts"}',
        },
        {
          type: "function_call",
          callId: b!.callId,
          name: "read_file",
          arguments: '{"path":"b.ts"}',
        },
      ],
      finishReason: "tool_calls",
    });
    const named = deltas(parts).filter(
      (part) => part.type === "tool-call-delta" && part.name !== undefined,
    );
    expect(named).toHaveLength(2);
    await collect(provider.stream(requestFor(parallelLog, 1)));
    server.assertAllConsumed();
  });

  it("replays a recorded 429 as rate_limit, without a client retry", async () => {
    const log = scriptedRecording()
      .user("Hi")
      .modelError("RATE_LIMIT", "Rate limit reached")
      .end("failed")
      .build();
    const server = await serve(log);
    const { error } = await streamError(create(server.url).stream(requestFor(log, 0)));
    expect(LlmError.isInstance(error)).toBe(true);
    expect([(error as LlmError).code, (error as LlmError).status]).toEqual(["RATE_LIMIT", 429]);
    expect(server.failures()).toEqual([]);
  });

  it("replays an error after some chunks as a stream error", async () => {
    const log = scriptedRecording()
      .user("Hi")
      .modelError("SERVER", "The server had an error", { partialText: "Hel lo" })
      .end("failed")
      .build();
    const server = await serve(log);
    const { error, parts } = await streamError(create(server.url).stream(requestFor(log, 0)));
    expect(parts).toEqual([
      { type: "text-delta", text: "Hel " },
      { type: "text-delta", text: "lo" },
    ]);
    expect((error as LlmError).code).toBe("SERVER");
    expect((error as LlmError).message).toContain("The server had an error");
  });

  it("replays a dropped stream as a network error", async () => {
    const log = scriptedRecording()
      .user("Hi")
      .modelError("NETWORK", "connection reset", { partialText: "Hel" })
      .end("failed")
      .build();
    const server = await serve(log);
    const { error, parts } = await streamError(create(server.url).stream(requestFor(log, 0)));
    expect(parts).toEqual([{ type: "text-delta", text: "Hel" }]);
    expect((error as LlmError).code).toBe("NETWORK");
    expect(server.failures()).toEqual([]);
  });

  it("reports a truncated answer as finishReason length", async () => {
    const log = scriptedRecording()
      .user("Write a lot")
      .text("Once upon a", { truncated: true })
      .end()
      .build();
    const server = await serve(log);
    const parts = await collect(create(server.url).stream(requestFor(log, 0)));
    expect(parts.at(-1)).toMatchObject({
      items: [{ type: "message", content: "Once upon a" }],
      finishReason: "length",
    });
  });

  it("replays a cancelled call as a stream that breaks off after the seen text", async () => {
    const log = scriptedRecording().user("Hi").modelCancelled("Hel").end("cancelled").build();
    const server = await serve(log);
    const { error, parts } = await streamError(create(server.url).stream(requestFor(log, 0)));
    expect(parts).toEqual([{ type: "text-delta", text: "Hel" }]);
    expect((error as LlmError).code).toBe("NETWORK");
  });

  it("replays a recorded refusal as the response's refusal, with no text", async () => {
    const server = await serve(refusalLog);
    const parts = await collect(create(server.url).stream(requestFor(refusalLog, 0)));
    expect(deltas(parts)).toEqual([]);
    expect(parts.at(-1)).toEqual({
      type: "response",
      items: [],
      finishReason: "stop",
      usage: expect.objectContaining({ outputTokens: 5 }),
      refusal: "I can't help with that.",
    });
    server.assertAllConsumed();
  });

  it("answers a mismatching request with 409 and the diff, and records the failure", async () => {
    const server = await serve(textLog);
    const request = { ...requestFor(textLog, 0), instructions: "Be verbose." };
    const { error } = await streamError(create(server.url).stream(request));
    expect((error as LlmError).status).toBe(409);
    expect((error as LlmError).message).toContain("Replay mismatch on model call 1 of 1");
    const [failure] = server.failures();
    expect(failure).toMatchObject({
      kind: "mismatch",
      callIndex: 0,
      route: expect.stringMatching(/^POST \/v1\//),
    });
    expect(failure!.diff!.map((entry) => entry.path)).toEqual(["instructions"]);
    expect(server.remaining()).toHaveLength(1);
  });
});

describe("the openai client's own stream accumulators accept the replayed events", () => {
  it("responses.stream() rebuilds the final Response from the SSE events", async () => {
    const server = await serve(parallelLog);
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const request = requestFor(parallelLog, 0);
    const stream = client.responses.stream({
      model: request.model,
      input: toResponsesInput(request.input),
      tools: toResponsesTools(request.tools),
    });
    const sequence: number[] = [];
    stream.on("event", (event) => sequence.push(event.sequence_number));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Reading.");
    expect(final.output.map((item) => item.type)).toEqual([
      "message",
      "function_call",
      "function_call",
    ]);
    expect(sequence).toEqual(sequence.map((_, index) => index));
  });

  it("chat.completions.stream() rebuilds the final completion from the chunks", async () => {
    const server = await serve(parallelLog);
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const request = requestFor(parallelLog, 0);
    const stream = client.chat.completions.stream({
      model: request.model,
      messages: toChatMessages(request),
      tools: toChatTools(request.tools),
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(message.content).toBe("Reading.");
    expect(
      message.tool_calls?.map((call) => (call.type === "function" ? call.function.arguments : "")),
    ).toEqual(['{"path":"a.ts"}', '{"path":"b.ts"}']);
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });
});

describe("refusals in the openai client's own types", () => {
  it("streams a refusal the Responses accumulator rebuilds as a refusal content part", async () => {
    const server = await serve(refusalLog);
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const request = requestFor(refusalLog, 0);
    const refusalDeltas: string[] = [];
    const stream = client.responses.stream({
      model: request.model,
      input: toResponsesInput(request.input),
    });
    stream.on("response.refusal.delta", (event) => refusalDeltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(refusalDeltas).toEqual(["I can't help with that."]);
    expect(final.output_text).toBe("");
    expect(final.output).toMatchObject([
      { type: "message", content: [{ type: "refusal", refusal: "I can't help with that." }] },
    ]);
  });

  it("streams a refusal the Chat accumulator rebuilds as message.refusal", async () => {
    const server = await serve(refusalLog);
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const request = requestFor(refusalLog, 0);
    const final = await client.chat.completions
      .stream({ model: request.model, messages: toChatMessages(request) })
      .finalChatCompletion();
    const [choice] = final.choices;
    expect([choice!.message.content, choice!.message.refusal, choice!.finish_reason]).toEqual([
      null,
      "I can't help with that.",
      "stop",
    ]);
  });

  it("answers non-streaming requests with the refusal in each API's place", async () => {
    const server = await serve(
      scriptedRecording().user("Q1").refusal("No.").user("Q2").refusal("Still no.").end().build(),
      "off",
    );
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const response = await client.responses.create({ model: "m", input: "Q1" });
    expect(response.output).toMatchObject([
      { type: "message", content: [{ type: "refusal", refusal: "No." }] },
    ]);
    expect(response.output_text).toBe("");
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Q2" }],
    });
    expect(completion.choices[0]!.message).toMatchObject({ content: null, refusal: "Still no." });
  });
});

describe("replay server timing", () => {
  it("paces streamed chunks by the recorded gaps times the scale", async () => {
    const slow = scriptedRecording({ chunkIntervalMs: 100 })
      .user("Hi")
      .text("a b c d")
      .end()
      .build();
    const server = await startReplayServer(slow, { timing: { scale: 0.5 } });
    servers.push(server);
    const started = performance.now();
    await collect(
      createOpenAIChatProvider({ apiKey, baseURL: server.url }).stream(requestFor(slow, 0)),
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });
});

describe("non-streaming requests through the openai client", () => {
  it("answers POST /v1/responses with a whole Response", async () => {
    const server = await serve(parallelLog);
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const request = requestFor(parallelLog, 0);
    const response = await client.responses.create({
      model: request.model,
      input: toResponsesInput(request.input),
      tools: toResponsesTools(request.tools),
    });
    expect(response.output_text).toBe("Reading.");
    expect(
      response.output.filter((item) => item.type === "function_call").map((item) => item.arguments),
    ).toEqual(['{"path":"a.ts"}', '{"path":"b.ts"}']);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  it("answers POST /v1/chat/completions with a whole completion", async () => {
    const server = await serve(toolLog);
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const request = requestFor(toolLog, 0);
    const completion = await client.chat.completions.create({
      model: request.model,
      messages: toChatMessages(request),
      tools: toChatTools(request.tools),
    });
    const [choice] = completion.choices;
    expect(choice!.finish_reason).toBe("tool_calls");
    expect(choice!.message.content).toBeNull();
    const [toolCall] = choice!.message.tool_calls ?? [];
    expect(toolCall?.type === "function" ? toolCall.function.arguments : undefined).toBe(
      '{"path":"src/index.ts","limit":200}',
    );
  });

  it("answers an extra request with 409 replay_exhausted", async () => {
    const server = await serve(textLog, "off");
    const client = new OpenAI({ apiKey, baseURL: server.url });
    const body = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
    await client.chat.completions.create(body);
    await expect(client.chat.completions.create(body)).rejects.toMatchObject({
      status: 409,
      error: { type: "replay_exhausted" },
    });
    expect(server.failures().map((failure) => failure.kind)).toEqual(["exhausted"]);
  });

  it("lists the recorded models on GET /v1/models without consuming a call", async () => {
    const server = await serve(textLog);
    const response = await fetch(`${server.url}/models`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { id: string }[] };
    expect(body.data.map((model) => model.id)).toEqual(["gpt-4.1-mini"]);
    expect(server.failures()).toEqual([]);
  });

  it("refuses other routes and malformed bodies", async () => {
    const server = await serve(textLog);
    expect((await fetch(`${server.url}/embeddings`)).status).toBe(404);
    const bad = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { message: expect.stringMatching(/not JSON/) },
    });
    expect(server.failures().map((failure) => failure.kind)).toEqual(["not_found", "bad_request"]);
  });
});
