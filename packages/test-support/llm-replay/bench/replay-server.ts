/**
 * Replay server throughput: a 2,000-chunk streamed answer through the real `openai` client, from
 * the replay server and from a minimal static SSE responder that writes the same bytes in one go
 * (the floor: client parsing plus loopback HTTP). Run: `pnpm --filter @tapedeck/llm-replay bench`.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { percentile, printTable } from "@tapedeck/bench";
import { toChatMessages, toResponsesInput } from "@tapedeck/llm";
import OpenAI from "openai";
import { loadRecording, scriptedRecording, startReplayServer } from "../src/index";
import { chatStreamPlan } from "../src/sse-chat";
import { responsesStreamPlan } from "../src/sse-responses";

const chunkCount = 2000;
const runs = Number(process.env.BENCH_RUNS ?? 20);
const warmups = 3;
const words = Array.from({ length: chunkCount }, (_, index) => `word${index} `);
const log = scriptedRecording()
  .user("Write a long answer.")
  .text(words.join(""), { chunks: words })
  .end()
  .build();
const recording = loadRecording(log);
const call = recording.calls[0]!;
const request = { model: log.model, input: call.input, tools: log.tools };

type Api = "responses" | "chat";

/** Streams one answer; returns ms to the first text delta and the total ms. */
async function streamOnce(
  baseURL: string,
  api: Api,
): Promise<{ firstByte: number; total: number; chunks: number }> {
  const client = new OpenAI({ apiKey: "sk-bench-dummy", baseURL, maxRetries: 0 });
  const start = performance.now();
  let firstByte = Number.NaN;
  let chunks = 0;
  if (api === "responses") {
    const stream = await client.responses.create({
      model: request.model,
      input: toResponsesInput(request.input),
      stream: true,
    });
    for await (const event of stream) {
      if (event.type !== "response.output_text.delta") continue;
      if (chunks === 0) firstByte = performance.now() - start;
      chunks += 1;
    }
  } else {
    const stream = await client.chat.completions.create({
      model: request.model,
      messages: toChatMessages(request),
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      if (!chunk.choices[0]?.delta?.content) continue;
      if (chunks === 0) firstByte = performance.now() - start;
      chunks += 1;
    }
  }
  if (chunks !== chunkCount) throw new Error(`expected ${chunkCount} chunks, got ${chunks}`);
  return { firstByte, total: performance.now() - start, chunks };
}

/** A server that answers every POST with the same precomputed SSE body, written at once. */
async function staticResponder(api: Api): Promise<{ url: string; close: () => void }> {
  const echo = { model: request.model };
  const plan = api === "chat" ? chatStreamPlan(call, echo, true) : responsesStreamPlan(call, echo);
  let body = plan.head;
  for (let index = 0; index < plan.count; index += 1) body += plan.chunk(index);
  body += plan.tail() ?? "";
  const server = createServer((incoming, response) => {
    incoming.resume();
    incoming.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function measure(api: Api, target: "replay" | "static") {
  const firstBytes: number[] = [];
  let totalMs = 0;
  let totalChunks = 0;
  for (let index = 0; index < warmups + runs; index += 1) {
    // A fresh replay server per run: each recorded call is served once.
    const server =
      target === "replay" ? await startReplayServer(recording) : await staticResponder(api);
    const result = await streamOnce(server.url, api);
    await server.close();
    if (index < warmups) continue;
    firstBytes.push(result.firstByte);
    totalMs += result.total;
    totalChunks += result.chunks;
  }
  firstBytes.sort((a, b) => a - b);
  return {
    chunksPerSecond: (totalChunks / totalMs) * 1000,
    firstByteP50: percentile(firstBytes, 50),
  };
}

for (const api of ["responses", "chat"] as const) {
  const replay = await measure(api, "replay");
  const floor = await measure(api, "static");
  const label = api === "chat" ? "Chat Completions" : "Responses API";
  printTable(
    `Replay server, ${label}: ${chunkCount}-chunk stream through the openai client (${runs} runs)`,
    [
      {
        name: "chunks/s",
        value: replay.chunksPerSecond,
        unit: "chunks/s",
        baseline: floor.chunksPerSecond,
        baselineName: "static SSE responder",
        better: "higher",
      },
      {
        name: "first-byte latency p50",
        value: replay.firstByteP50,
        unit: "ms",
        baseline: floor.firstByteP50,
        baselineName: "static SSE responder",
        better: "lower",
      },
    ],
  );
}
