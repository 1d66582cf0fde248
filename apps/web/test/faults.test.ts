/**
 * The viewer's run error for faults (issue #11 item 7): the same one sentence the CLI and ACP
 * print, for a model stream that never ends (a real HTTP server that stalls, the real `openai`
 * client) and for a full disk (the home on a real 64 KB tmpfs; see `smallDisk`).
 */
import { once } from "node:events";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { createMemoryIndex } from "@tapedeck/host";
import { createOpenAIChatProvider, type LlmProvider } from "@tapedeck/llm";
import { createSessionStore } from "@tapedeck/session-store";
import { smallDisk } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, type WebApp } from "../src/server/index";
import { readSse, type SseMessage } from "./sse";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A run of the viewer over `home` with `provider`; its SSE events, parsed. */
async function runIn(home: string, provider: LlmProvider): Promise<Record<string, unknown>[]> {
  const work = mkdtempSync(path.join(tmpdir(), "tapedeck-web-faults-work-"));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const store = createSessionStore({ home });
  const web: WebApp = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: "openai-chat:m", provider: () => provider, cwd: work },
  });
  cleanups.push(() => web.close());
  const response = await web.app.request("/api/agent/stream", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "hi", policy: "auto" }),
  });
  const events: SseMessage[] = [];
  if (response.body !== null)
    for await (const message of readSse(response.body)) events.push(message);
  return events.map((message) => ({ event: message.event, ...JSON.parse(message.data) }));
}

describe("the viewer's run error", () => {
  it("a stream that never ends: 'the model server sent no data for N s'", async () => {
    const server: Server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: "partial" }, finish_reason: null }] })}\n\n`,
        );
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-faults-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const provider = createOpenAIChatProvider({
      apiKey: "k",
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      maxRetries: 0,
      streamIdleTimeoutMs: 300,
    });
    const events = await runIn(home, provider);
    expect(events.find((event) => event.event === "error")).toMatchObject({
      code: "IDLE_TIMEOUT",
      message:
        "the model server sent no data for 300 ms (TAPEDECK_STREAM_IDLE_TIMEOUT_MS sets how long to wait)",
    });
    expect(events.at(-1)).toMatchObject({ event: "run_finished", status: "failed" });
  });

  it("a full disk: 'disk full (ENOSPC) writing PATH', and no .tmp left", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-faults-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const home = path.join(root, "home");
    const disk = smallDisk(home, 64 * 1024);
    cleanups.push(() => disk.unmount());
    cleanups.push(disk.injectHere());
    const events = await runIn(home, scriptedProvider([{ text: "y".repeat(100_000) }]));
    const error = events.find((event) => event.event === "error");
    expect(error).toMatchObject({ code: "STORAGE_FAULT" });
    expect(String(error?.message)).toMatch(
      // The first file of the home the run writes: the log, or the session's trust record.
      new RegExp(
        `^disk full \\(ENOSPC\\) writing ${home}/(sessions/[0-9a-f-]{36}\\.jsonl|trust/[0-9a-f-]{36})$`,
      ),
    );
    const names = readdirSync(home, { recursive: true }) as string[];
    expect(names.filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
