/**
 * A model stream that never ends: a real HTTP server on 127.0.0.1 sends the headers and one
 * chunk, then nothing; the real `openai` client behind each provider gives up after the idle
 * timeout with one sentence.
 */
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LlmConfigError, LlmError } from "./errors";
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, streamIdleTimeoutFromEnv } from "./idle-timeout";
import type { LlmProvider, LlmStreamPart } from "./llm-provider";
import { resolveProvider } from "./model-id";
import { createOpenAIChatProvider } from "./openai-chat";
import { createOpenAIResponsesProvider } from "./openai-responses";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server that answers every POST with `start(response)` and then never ends it. */
async function stallingServer(start: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => start(response));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" };
const chatChunk = `data: ${JSON.stringify({
  id: "c",
  object: "chat.completion.chunk",
  created: 0,
  model: "m",
  choices: [{ index: 0, delta: { role: "assistant", content: "partial" }, finish_reason: null }],
})}\n\n`;
const responsesChunk = `event: response.output_text.delta\ndata: ${JSON.stringify({
  type: "response.output_text.delta",
  item_id: "msg_1",
  output_index: 0,
  content_index: 0,
  delta: "partial",
  sequence_number: 1,
})}\n\n`;

const request = {
  model: "m",
  input: [{ type: "message" as const, role: "user" as const, content: "hi" }],
  tools: [],
};

/** Streams until the provider throws; returns the parts and the error. */
async function drain(provider: LlmProvider, signal?: AbortSignal) {
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of provider.stream(request, signal === undefined ? {} : { signal })) {
      parts.push(part);
    }
  } catch (error) {
    return { parts, error };
  }
  return { parts, error: undefined };
}

const providers: [string, string, (url: string, ms: number) => LlmProvider][] = [
  [
    "Chat Completions",
    chatChunk,
    (baseURL, ms) =>
      createOpenAIChatProvider({ apiKey: "k", baseURL, maxRetries: 0, streamIdleTimeoutMs: ms }),
  ],
  [
    "Responses",
    responsesChunk,
    (baseURL, ms) =>
      createOpenAIResponsesProvider({
        apiKey: "k",
        baseURL,
        maxRetries: 0,
        streamIdleTimeoutMs: ms,
      }),
  ],
];

describe.each(providers)("%s: a stream that stalls", (_name, firstChunk, create) => {
  it("fails after the idle timeout with idle_timeout and one sentence, the partial text kept", async () => {
    const url = await stallingServer((response) => {
      response.writeHead(200, sseHeaders);
      response.write(firstChunk);
    });
    const started = Date.now();
    const { parts, error } = await drain(create(url, 400));
    const elapsed = Date.now() - started;
    expect(parts).toEqual([{ type: "text-delta", text: "partial" }]);
    expect(LlmError.isInstance(error)).toBe(true);
    expect((error as LlmError).code).toBe("IDLE_TIMEOUT");
    expect((error as LlmError).message).toBe(
      "the model server sent no data for 400 ms (TAPEDECK_STREAM_IDLE_TIMEOUT_MS sets how long to wait)",
    );
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(5000);
  });

  it("counts from the request when the server never sends headers", async () => {
    const url = await stallingServer(() => {});
    const { error } = await drain(create(url, 300));
    expect((error as LlmError).code).toBe("IDLE_TIMEOUT");
  });

  it("a stream that keeps sending is not cut, however long it takes in total", async () => {
    const url = await stallingServer((response) => {
      response.writeHead(200, sseHeaders);
      let sent = 0;
      const timer = setInterval(() => {
        sent += 1;
        if (sent < 6) {
          response.write(": keep-alive\n\n");
          return;
        }
        clearInterval(timer);
        response.end(
          firstChunk === chatChunk
            ? `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: "done" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`
            : `event: response.completed\ndata: ${JSON.stringify({ type: "response.completed", sequence_number: 2, response: { id: "r", object: "response", created_at: 0, status: "completed", model: "m", output: [{ type: "message", id: "m1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } })}\n\n`,
        );
      }, 100);
    });
    // 600 ms in all, never 250 ms without a byte.
    const { error } = await drain(create(url, 250));
    expect(error).toBeUndefined();
  });

  it("cancelling says cancelled, not idle", async () => {
    const controller = new AbortController();
    // Cancelled mid-stream: once the first chunk has left the server.
    const url = await stallingServer((response) => {
      response.writeHead(200, sseHeaders);
      response.write(firstChunk, () => controller.abort());
    });
    const { error } = await drain(create(url, 5000), controller.signal);
    expect((error as LlmError).code).toBe("ABORTED");
  });
});

describe("TAPEDECK_STREAM_IDLE_TIMEOUT_MS", () => {
  it("defaults to 120 s; 0 turns it off; a number of ms is taken", () => {
    expect(DEFAULT_STREAM_IDLE_TIMEOUT_MS).toBe(120_000);
    expect(streamIdleTimeoutFromEnv({})).toBe(120_000);
    expect(streamIdleTimeoutFromEnv({ TAPEDECK_STREAM_IDLE_TIMEOUT_MS: " 1500 " })).toBe(1500);
    expect(streamIdleTimeoutFromEnv({ TAPEDECK_STREAM_IDLE_TIMEOUT_MS: "0" })).toBe(0);
  });

  it("refuses what is not a whole number of ms, naming the variable", () => {
    for (const bad of ["2s", "-1", "1.5", "abc"]) {
      expect(() => streamIdleTimeoutFromEnv({ TAPEDECK_STREAM_IDLE_TIMEOUT_MS: bad })).toThrow(
        LlmConfigError,
      );
    }
    expect(() =>
      resolveProvider("openai-chat:m", {
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        TAPEDECK_STREAM_IDLE_TIMEOUT_MS: "2s",
      }),
    ).toThrow(/TAPEDECK_STREAM_IDLE_TIMEOUT_MS must be a whole number/);
  });

  it("reaches the provider resolveProvider builds", async () => {
    const url = await stallingServer((response) => {
      response.writeHead(200, sseHeaders);
      response.write(chatChunk);
    });
    const { provider } = resolveProvider("openai-chat:m", {
      OPENAI_BASE_URL: url,
      TAPEDECK_STREAM_IDLE_TIMEOUT_MS: "300",
    });
    const { error } = await drain(provider);
    expect((error as LlmError).message).toMatch(/^the model server sent no data for 300 ms/);
  });
});
