import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  LlmError,
  type LlmRequest,
  llmRequestFromChatBody,
  llmRequestFromResponsesBody,
} from "@tapedeck/llm";
import { ReplayExhaustedError, ReplayMismatchError } from "./errors";
import {
  type LoadRecordingOptions,
  loadRecording,
  type RecordedCall,
  type Recording,
  type RecordingEvents,
} from "./recording";
import { ReplayCursor } from "./replay-cursor";
import type { DiffEntry, MatchMode } from "./request-diff";
import { chatCompletion, chatStreamPlan } from "./sse-chat";
import {
  type EchoFields,
  outputItems,
  responseObject,
  responsesStreamPlan,
  type StreamPlan,
} from "./sse-responses";
import { delayBefore, type ReplayTiming, sleep, timingScale } from "./timing";
import { wireErrorFor } from "./wire-errors";

/** Options of {@link startReplayServer}. */
export interface ReplayServerOptions {
  /** Port on 127.0.0.1; default 0 (any free port). */
  port?: number;
  /** How a request must match its recorded call; default `strict`. */
  match?: MatchMode;
  /** Chunk pacing; default `none`. */
  timing?: ReplayTiming;
  /** For a fork loaded from a path: where its parent is. */
  parent?: LoadRecordingOptions["parent"];
}

/** A request the server refused, as `failures()` lists it. */
export interface ReplayFailure {
  kind: "mismatch" | "exhausted" | "bad_request" | "not_found";
  /** `POST /v1/responses` … */
  route: string;
  message: string;
  /** For a mismatch: the recorded call it was compared with (0-based). */
  callIndex?: number;
  diff?: readonly DiffEntry[];
  /** The error itself (a ReplayMismatchError, ReplayExhaustedError or LlmError). */
  error: Error;
}

/** A running replay server. */
export interface ReplayServer {
  /** Base URL for the `openai` client and `OPENAI_BASE_URL`: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  readonly port: number;
  readonly recording: Recording;
  /** Requests refused so far (mismatches, exhaustion, malformed bodies), oldest first. */
  failures(): ReplayFailure[];
  /**
   * Every model request received (served or refused, malformed bodies aside), as the
   * `LlmRequest` it was read back into, oldest first: what a test asserts the agent sent.
   */
  requests(): LlmRequest[];
  /** Recorded calls not served yet. */
  remaining(): RecordedCall[];
  /** @throws UnconsumedResponsesError when recorded calls are left. */
  assertAllConsumed(): void;
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible HTTP server on 127.0.0.1 that answers from a recording: `POST
 * /v1/responses` and `POST /v1/chat/completions`, streaming (SSE, each API's own format) or not.
 * `GET /v1/models` lists the recorded models (nothing is consumed). Each request is turned back
 * into an `LlmRequest`, digested and matched against the next recorded
 * call; a mismatch or an extra request gets HTTP 409 with the diff as JSON (and
 * `x-should-retry: false`, so the `openai` client does not retry) and is kept in `failures()`.
 * A recorded refusal (`model/response.refusal`) replays as refusal content, never as text.
 * Recorded errors replay as the HTTP status (429, 500…) before any chunk, as `response.failed` /
 * an `error` frame after chunks, and `NETWORK` errors or calls cut off in the log as a dropped
 * connection.
 */
export async function startReplayServer(
  source: string | RecordingEvents | Recording,
  options: ReplayServerOptions = {},
): Promise<ReplayServer> {
  const recording = loadRecording(
    source,
    options.parent === undefined ? {} : { parent: options.parent },
  );
  const cursor = new ReplayCursor(recording, options.match ?? "strict");
  const scale = timingScale(options.timing);
  const failures: ReplayFailure[] = [];
  const received: LlmRequest[] = [];

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendJson(response, 500, { error: { message: String(error), type: "server_error" } });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?")[0]!.replace(/^\/v1(?=\/)/, "");
    const route = `${request.method ?? "?"} ${request.url ?? "/"}`;
    if (request.method === "GET" && path === "/models") {
      // What `models.list()` of the OpenAI client asks (an agent's model picker): the recorded
      // models, in order of first use. Not a model call: nothing is consumed.
      request.resume();
      listModels(recording, response);
      return;
    }
    const api =
      path === "/responses" ? "responses" : path === "/chat/completions" ? "chat" : undefined;
    if (request.method !== "POST" || api === undefined) {
      request.resume();
      const error = new Error(
        `The replay server serves POST /v1/responses and POST /v1/chat/completions, not ${route}.`,
      );
      failures.push({ kind: "not_found", route, message: error.message, error });
      sendJson(response, 404, { error: { message: error.message, type: "not_found" } });
      return;
    }
    let body: Record<string, unknown>;
    let llmRequest: LlmRequest;
    try {
      body = parseJsonBody(await readBody(request));
      llmRequest =
        api === "responses" ? llmRequestFromResponsesBody(body) : llmRequestFromChatBody(body);
    } catch (error) {
      const message = (error as Error).message;
      failures.push({ kind: "bad_request", route, message, error: error as Error });
      sendJson(response, 400, {
        error: { message, type: "invalid_request_error", code: null, param: null },
      });
      return;
    }
    received.push(structuredClone(llmRequest));
    let call: RecordedCall;
    try {
      const next = cursor.peek();
      if (api === "chat" && next !== undefined) llmRequest = liftInstructions(llmRequest, next);
      call = cursor.take(llmRequest);
    } catch (error) {
      if (ReplayMismatchError.isInstance(error)) {
        failures.push({
          kind: "mismatch",
          route,
          message: error.message,
          callIndex: error.callIndex,
          diff: error.diff,
          error,
        });
        sendJson(response, 409, { error: error.toJSON() });
        return;
      }
      if (ReplayExhaustedError.isInstance(error)) {
        failures.push({ kind: "exhausted", route, message: error.message, error });
        sendJson(response, 409, { error: error.toJSON() });
        return;
      }
      throw error;
    }
    const echo: EchoFields = { model: llmRequest.model, instructions: llmRequest.instructions };
    await answer(api, call, echo, body, response, scale);
  }

  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    recording,
    failures: () => [...failures],
    requests: () => [...received],
    remaining: () => cursor.remaining(),
    assertAllConsumed: () => cursor.assertAllConsumed(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/**
 * Answers one matched call as recorded: an HTTP error, a whole response, or a stream (see
 * {@link answerStream}), each after its recorded delay scaled by `scale`.
 */
async function answer(
  api: "responses" | "chat",
  call: RecordedCall,
  echo: EchoFields,
  body: Record<string, unknown>,
  response: ServerResponse,
  scale: number,
): Promise<void> {
  const { outcome } = call;
  const streaming = body.stream === true;
  const wire = outcome.type === "error" ? wireErrorFor(outcome.code, outcome.status) : undefined;
  // A recorded HTTP error before the first chunk (or of a non-streaming call) is an HTTP error.
  if (outcome.type === "error" && wire !== undefined && (!streaming || call.chunks.length === 0)) {
    await sleep(delayBefore(call, call.chunks.length, scale));
    sendJson(response, wire.status, {
      error: { message: outcome.message, type: wire.type, code: wire.code, param: null },
    });
    return;
  }
  if (!streaming) {
    await sleep(delayBefore(call, call.chunks.length, scale));
    if (outcome.type !== "response") {
      // A 200 whose body breaks off: the client fails reading it and does not retry.
      response.writeHead(200, { "content-type": "application/json", "content-length": 1024 });
      await drop(response, "{");
      return;
    }
    sendJson(
      response,
      200,
      api === "chat"
        ? chatCompletion(call, echo)
        : responseObject(call, echo, {
            status: outcome.finishReason === "length" ? "incomplete" : "completed",
            output: outputItems(call, outcome.items, outcome.refusal),
            usage: outcome.usage,
            ...(outcome.finishReason === "length" ? { incomplete: "max_output_tokens" } : {}),
          }),
      call.requestId,
    );
    return;
  }
  await answerStream(api, call, echo, body, response, scale);
}

/** A streamed answer: the plan's head, each chunk after its recorded delay, then its tail. */
async function answerStream(
  api: "responses" | "chat",
  call: RecordedCall,
  echo: EchoFields,
  body: Record<string, unknown>,
  response: ServerResponse,
  scale: number,
): Promise<void> {
  const includeUsage =
    (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const plan: StreamPlan =
    api === "chat" ? chatStreamPlan(call, echo, includeUsage) : responsesStreamPlan(call, echo);
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": call.requestId,
  });
  await write(response, plan.head);
  for (let index = 0; index < plan.count; index += 1) {
    const delay = delayBefore(call, index, scale);
    if (delay > 0) await sleep(delay);
    if (response.destroyed) return;
    await write(response, plan.chunk(index));
    // Node corks the socket until the next tick, and this loop only awaits settled promises:
    // without a turn of the event loop now and then, every chunk would leave in one packet.
    // After the first chunk a timer (not setImmediate) lets a poll phase run, so a client in
    // this process reads it before the rest is written.
    if (delay === 0 && index === 0) await new Promise<void>((resolve) => setTimeout(resolve, 0));
    else if (delay === 0 && index % 256 === 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  await sleep(delayBefore(call, plan.count, scale));
  const tail = plan.tail();
  if (tail === null) {
    await drop(response, ": dropped\n\n");
    return;
  }
  response.end(tail);
}

/** `GET /v1/models`: the recorded models, in order of first use. */
function listModels(recording: Recording, response: ServerResponse): void {
  const models = [...new Set(recording.calls.map((call) => call.model))];
  sendJson(response, 200, {
    object: "list",
    data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "llm-replay" })),
  });
}

const maxBody = 64 * 1024 * 1024;

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    size += (part as Buffer).length;
    if (size > maxBody) throw new LlmError("INVALID_REQUEST", `request body over ${maxBody} bytes`);
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}

/** The one place the server parses JSON: the request body. */
function parseJsonBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LlmError("INVALID_REQUEST", `request body is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LlmError("INVALID_REQUEST", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  requestId?: string,
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    // The openai client retries 409/429/5xx by default; a replayed answer must not be retried,
    // or the retry would consume the next recorded call.
    "x-should-retry": "false",
    ...(requestId === undefined ? {} : { "x-request-id": requestId }),
  });
  response.end(text);
}

/**
 * Breaks the connection after `last` and everything before it reached the socket, so the client
 * sees the headers and chunks and then a broken stream, not a failed request it would retry.
 */
async function drop(response: ServerResponse, last: string): Promise<void> {
  await new Promise<void>((resolve) => response.write(last, () => resolve()));
  response.destroy();
}

/** Writes and waits for the drain when the socket buffer is full. */
function write(response: ServerResponse, text: string): Promise<void> | void {
  if (text === "" || response.destroyed) return;
  if (response.write(text)) return;
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

/**
 * Chat Completions carries instructions as a leading system message. When the request has exactly
 * one more leading system message than the recorded input, that one is the instructions: moving it
 * back keeps the digest and makes a mismatch diff read "instructions", not "input[0]".
 */
function liftInstructions(request: LlmRequest, call: RecordedCall): LlmRequest {
  const leadingSystem = (items: readonly LlmRequest["input"][number][]) => {
    let count = 0;
    while (count < items.length) {
      const item = items[count]!;
      if (item.type !== "message" || item.role !== "system") break;
      count += 1;
    }
    return count;
  };
  const first = request.input[0];
  if (request.instructions !== undefined || first?.type !== "message") return request;
  if (leadingSystem(request.input) !== leadingSystem(call.input) + 1) return request;
  return { ...request, instructions: first.content, input: request.input.slice(1) };
}
