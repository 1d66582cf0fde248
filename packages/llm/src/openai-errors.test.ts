import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "./errors";
import type { LlmProvider, LlmStreamPart } from "./llm-provider";
import { createOpenAIChatProvider } from "./openai-chat";
import type { OpenAIProviderOptions } from "./openai-client";
import { redact } from "./openai-errors";
import { createOpenAIResponsesProvider } from "./openai-responses";

const secret = "sk-test-0123456789abcdefSECRET";
type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => handler(request, response));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

function jsonError(status: number, error: Record<string, unknown>): Handler {
  return (_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify({ error }));
  };
}

const providers: [string, (options: OpenAIProviderOptions) => LlmProvider][] = [
  ["openai (Responses)", createOpenAIResponsesProvider],
  ["openai-chat", createOpenAIChatProvider],
];

async function failure(provider: LlmProvider, signal?: AbortSignal): Promise<LlmError> {
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of provider.stream(
      { model: "m", input: [{ type: "message", role: "user", content: "hi" }], tools: [] },
      signal === undefined ? {} : { signal },
    )) {
      parts.push(part);
    }
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected an LlmError, got ${JSON.stringify(parts)}`);
}

describe.each(providers)("%s error mapping", (_name, create) => {
  const provider = (baseURL: string) => create({ apiKey: secret, baseURL, maxRetries: 0 });

  it("maps 401 to auth without leaking the key", async () => {
    const url = await serve(
      jsonError(401, {
        message: `Incorrect API key provided: ${secret}.`,
        code: "invalid_api_key",
      }),
    );
    const error = await failure(provider(url));
    expect(error.code).toBe("AUTH");
    expect(error.status).toBe(401);
    expect(error.message).toContain("Incorrect API key provided");
    for (const text of [error.message, inspect(error, { depth: 5 }), JSON.stringify(error)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain("0123456789abcdef");
    }
  });

  it("maps 429 to rate_limit", async () => {
    const url = await serve(jsonError(429, { message: "Slow down", code: "rate_limit_exceeded" }));
    const error = await failure(provider(url));
    expect([error.code, error.retryable]).toEqual(["RATE_LIMIT", true]);
  });

  it("maps a context overflow to context_length", async () => {
    const url = await serve(
      jsonError(400, {
        message: "This model's maximum context length is 8192 tokens",
        code: "context_length_exceeded",
      }),
    );
    expect((await failure(provider(url))).code).toBe("CONTEXT_LENGTH");
  });

  it("maps 500 to server and 404 to invalid_request", async () => {
    expect((await failure(provider(await serve(jsonError(500, { message: "oops" }))))).code).toBe(
      "SERVER",
    );
    expect(
      (await failure(provider(await serve(jsonError(404, { message: "no such model" }))))).code,
    ).toBe("INVALID_REQUEST");
  });

  it("maps a refused connection to network", async () => {
    const url = await serve(() => {});
    const server = servers.pop()!;
    server.close();
    await once(server, "close");
    const error = await failure(provider(url));
    expect(error.code).toBe("NETWORK");
    // The URL is what a user with a wrong OPENAI_BASE_URL needs to see.
    expect(error.message).toBe(`Could not reach the model server at ${url}: Connection error.`);
  });

  it("maps a stream that breaks off to network", async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": keep-alive\n\n", () => setTimeout(() => response.destroy(), 20));
    });
    expect((await failure(provider(url))).code).toBe("NETWORK");
  });

  it("maps an abort to aborted", async () => {
    const controller = new AbortController();
    // Cancelled while the stream waits: once the server has answered.
    const url = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": waiting\n\n", () => controller.abort());
    });
    expect((await failure(provider(url), controller.signal)).code).toBe("ABORTED");
  });
});

describe("redact", () => {
  it("removes the key and anything shaped like a secret key", () => {
    expect(redact("key abcd1234 and sk-proj-XYZ123456", "abcd1234")).toBe(
      "key [redacted] and sk-[redacted]",
    );
  });
});

describe.each(providers)("%s with credentials in the base URL", (_name, create) => {
  it("sends them as Basic authorization (fetch refuses them in the URL) and never names them", async () => {
    let authorization: string | undefined;
    const url = await serve((request, response) => {
      authorization = request.headers.authorization;
      jsonError(500, { message: "stop here" })(request, response);
    });
    const withCredentials = url.replace("http://", "http://proxy-user:pa%24%24-w0rd-SECRET@");
    const error = await failure(
      create({ apiKey: secret, baseURL: withCredentials, maxRetries: 0 }),
    );
    expect(authorization).toBe(`Basic ${btoa("proxy-user:pa$$-w0rd-SECRET")}`);
    expect(error.code).not.toBe("NETWORK");
    const unreachable = await failure(
      create({ apiKey: secret, baseURL: "http://u:hunter2-SECRET@127.0.0.1:9/v1", maxRetries: 0 }),
    );
    expect(unreachable.message).toContain(
      "Could not reach the model server at http://127.0.0.1:9/v1",
    );
    expect(unreachable.message).not.toContain("hunter2");
  });
});
