/**
 * Stream handling of both providers against hand-written SSE bodies on 127.0.0.1: the shapes
 * servers really send that the replay server does not produce.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "./errors";
import type { LlmProvider, LlmStreamPart } from "./llm-provider";
import { createOpenAIChatProvider } from "./openai-chat";
import { createOpenAIResponsesProvider } from "./openai-responses";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function sse(body: string): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(body);
    });
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const request = {
  model: "m",
  input: [{ type: "message" as const, role: "user" as const, content: "hi" }],
  tools: [],
};

async function run(provider: LlmProvider): Promise<LlmStreamPart[]> {
  const parts: LlmStreamPart[] = [];
  for await (const part of provider.stream(request)) parts.push(part);
  return parts;
}

const event = (data: Record<string, unknown> & { type: string }) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices, ...extra })}\n\n`;

describe("Responses provider streams", () => {
  const responses = (url: string) =>
    createOpenAIResponsesProvider({ apiKey: "k", baseURL: url, maxRetries: 0 });
  const call = { id: "fc_1", type: "function_call", call_id: "call_1", name: "ls", arguments: "" };

  it("yields a call whose arguments were never streamed, whole, at output_item.done", async () => {
    const done = { ...call, arguments: '{"path":"."}', status: "completed" };
    const url = await sse(
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: call,
        sequence_number: 0,
      }) +
        event({
          type: "response.output_item.done",
          output_index: 0,
          item: done,
          sequence_number: 1,
        }) +
        event({
          type: "response.completed",
          sequence_number: 2,
          response: {
            status: "completed",
            output: [done],
            usage: { input_tokens: 3, output_tokens: 4 },
          },
        }),
    );
    expect(await run(responses(url))).toEqual([
      { type: "tool-call-delta", callId: "call_1", name: "ls", arguments: '{"path":"."}' },
      {
        type: "response",
        items: [{ type: "function_call", callId: "call_1", name: "ls", arguments: '{"path":"."}' }],
        finishReason: "tool_calls",
        usage: { inputTokens: 3, outputTokens: 4 },
      },
    ]);
  });

  it("maps response.incomplete for max_output_tokens to finishReason length", async () => {
    const message = {
      id: "m1",
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Once" }],
    };
    const url = await sse(
      event({
        type: "response.output_text.delta",
        item_id: "m1",
        output_index: 0,
        content_index: 0,
        delta: "Once",
        sequence_number: 0,
      }) +
        event({
          type: "response.incomplete",
          sequence_number: 1,
          response: {
            status: "incomplete",
            incomplete_details: { reason: "max_output_tokens" },
            output: [message],
          },
        }),
    );
    expect((await run(responses(url))).at(-1)).toEqual({
      type: "response",
      items: [{ type: "message", role: "assistant", content: "Once" }],
      finishReason: "length",
    });
  });

  it("reports refusal content as the response's refusal, never as text", async () => {
    const refusal = { type: "refusal", refusal: "I can't help with that." };
    const message = { id: "m1", type: "message", role: "assistant", content: [refusal] };
    const url = await sse(
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...message, content: [], status: "in_progress" },
        sequence_number: 0,
      }) +
        event({
          type: "response.content_part.added",
          item_id: "m1",
          output_index: 0,
          content_index: 0,
          part: { type: "refusal", refusal: "" },
          sequence_number: 1,
        }) +
        ["I can't ", "help with that."]
          .map((delta, index) =>
            event({
              type: "response.refusal.delta",
              item_id: "m1",
              output_index: 0,
              content_index: 0,
              delta,
              sequence_number: 2 + index,
            }),
          )
          .join("") +
        event({
          type: "response.refusal.done",
          item_id: "m1",
          output_index: 0,
          content_index: 0,
          refusal: refusal.refusal,
          sequence_number: 4,
        }) +
        event({
          type: "response.output_item.done",
          output_index: 0,
          item: message,
          sequence_number: 5,
        }) +
        event({
          type: "response.completed",
          sequence_number: 6,
          response: {
            status: "completed",
            output: [message],
            usage: { input_tokens: 3, output_tokens: 6 },
          },
        }),
    );
    expect(await run(responses(url))).toEqual([
      {
        type: "response",
        items: [],
        finishReason: "stop",
        usage: { inputTokens: 3, outputTokens: 6 },
        refusal: "I can't help with that.",
      },
    ]);
  });

  it("keeps streamed refusal text when the final response leaves the output out", async () => {
    const url = await sse(
      event({
        type: "response.refusal.delta",
        item_id: "m1",
        output_index: 0,
        content_index: 0,
        delta: "No.",
        sequence_number: 0,
      }) +
        event({
          type: "response.completed",
          sequence_number: 1,
          response: { status: "completed", output: [] },
        }),
    );
    expect(await run(responses(url))).toEqual([
      { type: "response", items: [], finishReason: "stop", refusal: "No." },
    ]);
  });

  it("keeps the text of a message that also refuses, and the refusal apart", async () => {
    const message = {
      id: "m1",
      type: "message",
      role: "assistant",
      content: [
        { type: "output_text", text: "Here is part of it." },
        { type: "refusal", refusal: "The rest I won't write." },
      ],
    };
    const url = await sse(
      event({
        type: "response.output_text.delta",
        item_id: "m1",
        output_index: 0,
        content_index: 0,
        delta: "Here is part of it.",
        sequence_number: 0,
      }) +
        event({
          type: "response.completed",
          sequence_number: 1,
          response: { status: "completed", output: [message] },
        }),
    );
    expect(await run(responses(url))).toEqual([
      { type: "text-delta", text: "Here is part of it." },
      {
        type: "response",
        items: [{ type: "message", role: "assistant", content: "Here is part of it." }],
        finishReason: "stop",
        refusal: "The rest I won't write.",
      },
    ]);
  });

  it("fails with network when the stream ends without response.completed", async () => {
    const url = await sse(
      event({
        type: "response.output_text.delta",
        item_id: "m1",
        output_index: 0,
        content_index: 0,
        delta: "Hi",
        sequence_number: 0,
      }),
    );
    const error = await run(responses(url)).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(LlmError.isInstance(error)).toBe(true);
    expect([(error as LlmError).code, (error as LlmError).message]).toEqual([
      "NETWORK",
      "The model stream ended before the response completed (no response.completed event).",
    ]);
  });

  it("maps a response.failed rate limit to rate_limit", async () => {
    const url = await sse(
      event({
        type: "response.failed",
        sequence_number: 0,
        response: {
          status: "failed",
          output: [],
          error: { code: "rate_limit_exceeded", message: "Too many requests" },
        },
      }),
    );
    const error = (await run(responses(url)).catch((caught: unknown) => caught)) as LlmError;
    expect([error.code, error.providerCode]).toEqual(["RATE_LIMIT", "rate_limit_exceeded"]);
  });
});

describe("Chat provider streams", () => {
  const chat = (url: string) =>
    createOpenAIChatProvider({ apiKey: "k", baseURL: url, maxRetries: 0 });

  it("skips the empty role chunk, reports calls as tool_calls even when the server says stop", async () => {
    const url = await sse(
      chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]) +
        chunk([
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 0, id: "call_a", function: { name: "ls", arguments: "" } }],
            },
            finish_reason: null,
          },
        ]) +
        chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: "{}" } }] },
            finish_reason: null,
          },
        ]) +
        chunk([{ index: 0, delta: {}, finish_reason: "stop" }]) +
        chunk([], {
          usage: {
            prompt_tokens: 5,
            completion_tokens: 2,
            total_tokens: 7,
            prompt_tokens_details: { cached_tokens: 1 },
          },
        }) +
        "data: [DONE]\n\n",
    );
    expect(await run(chat(url))).toEqual([
      { type: "tool-call-delta", callId: "call_a", name: "ls", arguments: "" },
      { type: "tool-call-delta", callId: "call_a", arguments: "{}" },
      {
        type: "response",
        items: [{ type: "function_call", callId: "call_a", name: "ls", arguments: "{}" }],
        finishReason: "tool_calls",
        usage: { inputTokens: 5, outputTokens: 2, cachedInputTokens: 1 },
      },
    ]);
  });

  it("collects delta.refusal fragments into the response's refusal, never as text", async () => {
    const url = await sse(
      chunk([
        { index: 0, delta: { role: "assistant", content: "", refusal: null }, finish_reason: null },
      ]) +
        chunk([{ index: 0, delta: { refusal: "I can't " }, finish_reason: null }]) +
        chunk([{ index: 0, delta: { refusal: "help with that." }, finish_reason: null }]) +
        chunk([{ index: 0, delta: {}, finish_reason: "stop" }]) +
        "data: [DONE]\n\n",
    );
    expect(await run(chat(url))).toEqual([
      { type: "response", items: [], finishReason: "stop", refusal: "I can't help with that." },
    ]);
  });

  it("fails with network when the stream ends without a finish_reason", async () => {
    const url = await sse(chunk([{ index: 0, delta: { content: "Hi" }, finish_reason: null }]));
    const error = (await run(chat(url)).catch((caught: unknown) => caught)) as LlmError;
    expect([error.code, error.message]).toEqual([
      "NETWORK",
      "The model stream ended before the response finished (no finish_reason).",
    ]);
  });
});
