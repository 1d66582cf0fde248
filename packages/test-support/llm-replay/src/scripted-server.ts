import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One tool call a scripted response emits, exactly as given (an empty name included). */
export interface ScriptedToolCall {
  name: string;
  /** JSON text, or a value to stringify. */
  arguments: unknown;
  /** Provider call id; default `call_<n>`. */
  id?: string;
}

/** One answer of the scripted server to one model request (Chat Completions, streamed). */
export interface ScriptedResponse {
  /** Text streamed before any tool call. */
  text?: string;
  /** Tool calls of this response (finish reason `tool_calls` when any). */
  toolCalls?: ScriptedToolCall[];
  /**
   * Stop sending after the text (and before any finish) and keep the connection open: a stream
   * that never ends. The server ends it only on `close()`.
   */
  stall?: boolean;
}

/** Options of {@link startScriptedServer}. */
export interface ScriptedServerOptions {
  /** Model ids listed by `GET /v1/models`; default `["scripted"]`. */
  models?: string[];
}

/** A running scripted server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>/v1`: `OPENAI_BASE_URL` of the agent under test. */
  readonly url: string;
  /** Every request body received on `/v1/chat/completions`, oldest first. */
  requests(): Record<string, unknown>[];
  /** Responses not served yet. */
  remaining(): number;
  /** Stops listening and cuts open (stalled) connections. */
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible Chat Completions server (streaming only) that answers each request with
 * the next scripted response, whatever was asked: the hostile model of attack tests, emitting
 * chosen tool calls (hidden characters, dangling links, catastrophic regexes, empty names) and
 * streams that never end. Unlike the replay server it matches nothing: requests are kept in
 * `requests()` for the test to inspect (e.g. that a secret never reached the model). A request
 * past the script gets HTTP 400 with `x-should-retry: false`.
 *
 * Point the agent at it with `TAPEDECK_MODEL=openai-chat:scripted` and `OPENAI_BASE_URL=url`.
 */
export async function startScriptedServer(
  responses: readonly ScriptedResponse[],
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const queue = [...responses];
  const received: Record<string, unknown>[] = [];
  const open = new Set<ServerResponse>();
  const models = options.models ?? ["scripted"];
  let served = 0;

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method === "GET" && path === "/v1/models") {
      sendJson(response, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" })),
      });
      return;
    }
    if (request.method !== "POST" || path !== "/v1/chat/completions") {
      request.resume();
      sendJson(response, 404, { error: { message: `not served: ${request.method} ${path}` } });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
    const next = queue.shift();
    if (next === undefined) {
      sendJson(response, 400, {
        error: {
          message: `the script has ${responses.length} responses; this is request ${received.length}`,
        },
      });
      return;
    }
    served += 1;
    streamResponse(response, next, served);
  }

  function streamResponse(response: ServerResponse, scripted: ScriptedResponse, n: number): void {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    open.add(response);
    response.on("close", () => open.delete(response));
    const id = `chatcmpl-scripted-${n}`;
    const send = (delta: Record<string, unknown>, finish: string | null = null, extra = {}) =>
      response.write(
        `data: ${JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created: 0,
          model: models[0],
          choices: [{ index: 0, delta, finish_reason: finish }],
          ...extra,
        })}\n\n`,
      );
    send({ role: "assistant", content: "" });
    if (scripted.text !== undefined && scripted.text !== "") send({ content: scripted.text });
    if (scripted.stall === true) {
      response.flushHeaders();
      return;
    }
    const calls = scripted.toolCalls ?? [];
    calls.forEach((call, index) => {
      const args =
        typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      send({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${n}_${index}`,
            type: "function",
            function: { name: call.name, arguments: args },
          },
        ],
      });
    });
    send({}, calls.length > 0 ? "tool_calls" : "stop");
    response.write(
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: 0,
        model: models[0],
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      })}\n\n`,
    );
    response.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => [...received],
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "x-should-retry": "false" });
  response.end(JSON.stringify(body));
}
