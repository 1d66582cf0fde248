/**
 * `GET /api/sessions/:id/page`: with the SQLite index the last page is read by position from what
 * the index checked (no replay, no read from the log's start, only its own bytes); earlier pages
 * walk back to the start and together are the whole session; a damaged log, or bytes that differ
 * from what the index checked, answer the replay's precise error; the session stream continues
 * from the byte where the page ended.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SessionViewData } from "@tapedeck/html-export/render";
import type { SessionEvent } from "@tapedeck/session";
import { benchTurnStart, eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { modelRequest } from "../bench/corpus";
import { LiveSession } from "../src/client/live-session";
import { createApp, createMemoryIndex, createSqliteIndex, type WebApp } from "../src/server/index";
import { FIRST_CHUNK_BYTES, type SessionPage } from "../src/server/session-pages";
import { readSse } from "./sse";

let home: string;
let store: SessionStore;
let web: WebApp | undefined;
let closeIndex = () => {};
/** No model: these tests never run the agent. */
const agent = { model: "openai:gpt-4.1-mini", env: {} };

/** A log of `turns` turns: a goal set early, tool calls, streamed chunks, a compaction midway. */
function writeLog(turns: number): { sessionId: string; file: string } {
  const log = eventLogBuilder({ start: new Date("2026-04-01T00:00:00Z") });
  log.system("You are a paging test.");
  const userSeqs: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    log.turn().user(`Question ${turn} about the kettle`);
    userSeqs.push(log.events.length);
    if (turn === 2)
      log.push({ type: "goal/set", runId: log.events.at(-1)?.runId ?? "", goal: "Ship paging" });
    const runId = log.events.at(-1)?.runId ?? "";
    const requestId = `req-${turn}`;
    log.push(modelRequest(runId, requestId, [1, log.events.length]));
    for (let index = 0; index < 3; index++) {
      log.push({
        type: "assistant/chunk",
        runId,
        requestId,
        index,
        delta: { text: `part${index} ` },
      });
    }
    log.push({
      type: "model/response",
      runId,
      requestId,
      finishReason: "stop",
      usage: { inputTokens: 100 + turn, outputTokens: 10 },
    });
    log.call("read_file", { path: `src/${turn}.ts` });
    log.output(`contents of file ${turn} `.repeat(20));
    if (turn === Math.floor(turns / 2))
      log.compact("Summary of the first turns", userSeqs.slice(0, 2));
    log.assistant(`Answer ${turn}`);
    log.end();
  }
  const dir = path.join(home, "sessions");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${log.header.sessionId}.jsonl`);
  writeFileSync(file, log.jsonl());
  return { sessionId: log.header.sessionId, file };
}

async function sqliteApp(): Promise<WebApp> {
  const index = createSqliteIndex(store, () => undefined);
  closeIndex = () => index.close();
  await index.sync();
  web = createApp({ store, index, agent });
  return web;
}

async function getPage(app: WebApp, id: string, query = ""): Promise<SessionPage> {
  const response = await app.app.request(`/api/sessions/${id}/page${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SessionPage;
}

async function wholeView(app: WebApp, id: string): Promise<SessionViewData> {
  return (await (await app.app.request(`/api/sessions/${id}`)).json()) as SessionViewData;
}

/** Every page from the last back to the first, each asked for as the page asks. */
async function allPages(app: WebApp, id: string, limit: number): Promise<SessionPage[]> {
  const pages = [await getPage(app, id, `?limit=${limit}`)];
  for (let page = pages[0]; page !== undefined && page.firstSeq > 1; page = pages.at(-1)) {
    const offset = page.start === null ? "" : `&beforeOffset=${page.start}`;
    pages.push(await getPage(app, id, `?limit=${limit}&before=${page.firstSeq}${offset}`));
  }
  return pages;
}

/** Counts the bytes read through the store's positional readers. */
function countPositionalReads(): { bytes: number } {
  const counted = { bytes: 0 };
  const open = store.openLogReader.bind(store);
  vi.spyOn(store, "openLogReader").mockImplementation((id) => {
    const reader = open(id);
    if (reader === null) return null;
    return {
      readAt: (offset, length) => {
        counted.bytes += length;
        return reader.readAt(offset, length);
      },
      readInto: (target, targetOffset, offset, length) => {
        counted.bytes += length;
        return reader.readInto(target, targetOffset, offset, length);
      },
      withPayload: (event) => reader.withPayload(event),
      close: () => reader.close(),
    };
  });
  return counted;
}

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-pages-"));
  store = createSessionStore({ home });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await web?.close();
  web = undefined;
  closeIndex();
  closeIndex = () => {};
  rmSync(home, { recursive: true, force: true });
});

describe("GET /api/sessions/:id/page", () => {
  it("reads the last page by position: no replay, no read from the start, its own bytes only", async () => {
    const { sessionId, file } = writeLog(300);
    const app = await sqliteApp();
    const whole = await wholeView(app, sessionId);
    const replays = vi.spyOn(store, "readSession");
    const reads = vi.spyOn(store, "read");
    const counted = countPositionalReads();
    const response = await app.app.request(`/api/sessions/${sessionId}/page?limit=100`);
    const text = await response.text();
    const page = JSON.parse(text) as SessionPage;

    expect(page.source).toBe("index");
    expect(replays).not.toHaveBeenCalled();
    expect(reads).not.toHaveBeenCalled();
    // The page starts at a turn and ends with the log; its events are the whole view's.
    expect(page.events[0]?.type).toBe("turn/start");
    expect(page.lastSeq).toBe(whole.lastSeq);
    expect(page.end).toBe(statSync(file).size);
    expect(page.events).toEqual(whole.events.filter((event) => event.seq >= page.firstSeq));
    expect(page.totals).toEqual({
      eventCount: whole.eventCount,
      turnCount: 300,
      usage: whole.usage,
      goal: "Ship paging",
      lastSeq: whole.lastSeq,
      firstPrompt: "Question 1 about the kettle",
    });
    // What was read: the page's bytes, at most one step of read-ahead, and the goal's line.
    const pageBytes = (page.end ?? 0) - (page.start ?? 0);
    const size = statSync(file).size;
    expect(counted.bytes).toBeLessThan(pageBytes * 2 + FIRST_CHUNK_BYTES + 1024);
    expect(counted.bytes).toBeLessThan(size / 4);
    // What was sent: a fraction of the whole session.
    const wholeBytes = (await (await app.app.request(`/api/sessions/${sessionId}`)).text()).length;
    expect(text.length).toBeLessThan(wholeBytes / 10);
  });

  it("a tool output stored in a blob is served whole on a page read by position, as in the whole view", async () => {
    const output = `${"cc -O2 -c src/module.c -o build/module.o\n".repeat(3600)}error: zanzibarite missing\n`;
    const { sessionId } = await store.create({ cwd: home });
    const writer = await store.openWriter(sessionId);
    const runId = "0193b6e2-7c1a-7d3e-9f00-0000000000a9";
    await writer.append([
      benchTurnStart(runId),
      { type: "message", runId, role: "user", content: "build it" },
      { type: "function_call", runId, callId: "c1", name: "run_command", arguments: "{}" },
    ]);
    await writer.append([
      {
        type: "function_call_output",
        runId,
        callId: "c1",
        output,
        isError: false,
        sourceEventSeqs: [3],
      },
      { type: "message", runId, role: "assistant", content: "The build failed." },
      { type: "turn/end", runId, status: "completed" },
    ]);
    await writer.close();
    expect(readFileSync(store.pathOf(sessionId), "utf8")).toContain('"outputBlob":');
    const app = await sqliteApp();
    const page = await getPage(app, sessionId);
    expect(page.source).toBe("index");
    const served = page.events.find((event) => event.type === "function_call_output");
    expect(served).toMatchObject({ output });
    expect(served).not.toHaveProperty("outputBlob");
    expect(page.events).toEqual((await wholeView(app, sessionId)).events);
  });

  it("walks back page by page to the start; the pages together are the whole session", async () => {
    const { sessionId } = writeLog(40);
    const app = await sqliteApp();
    const whole = await wholeView(app, sessionId);
    const replays = vi.spyOn(store, "readSession");
    const pages = await allPages(app, sessionId, 25);
    expect(replays).not.toHaveBeenCalled();
    expect(pages.length).toBeGreaterThan(4);
    expect(pages.every((page) => page.source === "index")).toBe(true);
    const events = pages.toReversed().flatMap((page) => page.events);
    expect(events).toEqual(whole.events);
    // The page holds what the whole view holds, rows included (turn numbers, replaced rows,
    // streamed text).
    const [last, ...earlier] = pages;
    if (last === undefined) throw new Error("no page");
    const live = new LiveSession(last);
    for (const page of earlier) expect(live.prepend(page)).toBe("prepended");
    const reference = new LiveSession(whole);
    expect(live.rows).toEqual(reference.rows);
    expect(live.events).toEqual(reference.events);
    expect(live.usage).toEqual(reference.usage);
    expect(live.goal).toBe(reference.goal);
    expect(live.firstPrompt).toBe("Question 1 about the kettle");
  });

  it("answers the same pages from a replay without the SQLite index", async () => {
    const { sessionId } = writeLog(40);
    const fromIndex = await allPages(await sqliteApp(), sessionId, 25);
    web = createApp({ store, index: createMemoryIndex(store), agent });
    const fromReplay = await allPages(web, sessionId, 25);
    expect(fromReplay.every((page) => page.source === "replay" && page.start === null)).toBe(true);
    const strip = ({ source, start, end, ...rest }: SessionPage) => rest;
    expect(fromReplay.map(strip)).toEqual(fromIndex.map(strip));
  });

  it("reaches back to a seq asked for (a deep link), from the start of its turn", async () => {
    const { sessionId } = writeLog(60);
    const app = await sqliteApp();
    const last = await getPage(app, sessionId, "?limit=20");
    const target = 100;
    expect(last.firstSeq).toBeGreaterThan(target);
    const page = await getPage(
      app,
      sessionId,
      `?before=${last.firstSeq}&beforeOffset=${last.start}&from=${target}`,
    );
    expect(page.source).toBe("index");
    expect(page.firstSeq).toBeLessThanOrEqual(target);
    expect(page.events[0]?.type).toBe("turn/start");
    expect(page.lastSeq).toBe(last.firstSeq - 1);
    expect(page.events.some((event) => event.seq === target)).toBe(true);
  });

  it("refuses a damaged log with the precise error, as opening the whole session does", async () => {
    const { sessionId, file } = writeLog(10);
    const lines = readFileSync(file, "utf8").split("\n");
    lines[4] = "{not json";
    writeFileSync(file, lines.join("\n"));
    const app = await sqliteApp();
    const page = await app.app.request(`/api/sessions/${sessionId}/page`);
    const whole = await app.app.request(`/api/sessions/${sessionId}`);
    expect(page.status).toBe(422);
    const body = (await page.json()) as { error: { code: string; line: number; offset: number } };
    expect(body.error).toMatchObject({ code: "BAD_JSON", line: 5 });
    expect(body).toEqual(await whole.json());
  });

  it("does not serve bytes that differ from what the index checked", async () => {
    const { sessionId, file } = writeLog(10);
    const app = await sqliteApp();
    // Rewritten in place after the index read it (no Tapedeck writer does this): same size, so
    // the index keeps its record; the page's read finds a line that is no event.
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n");
    const at = lines.length - 4;
    lines[at] = "x".repeat(lines[at]?.length ?? 0);
    writeFileSync(file, lines.join("\n"));
    const response = await app.app.request(`/api/sessions/${sessionId}/page`);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; line: number } };
    expect(body.error).toMatchObject({ code: "BAD_JSON", line: at + 1 });
  });

  it("answers a fork from a replay (its first events are its parent's)", async () => {
    const { sessionId } = writeLog(10);
    const fork = await store.fork(sessionId, { atSeq: 30 });
    const app = await sqliteApp();
    const pages = await allPages(app, fork.sessionId, 5);
    expect(pages.every((page) => page.source === "replay")).toBe(true);
    const events = pages.toReversed().flatMap((page) => page.events);
    expect(events).toEqual((await wholeView(app, fork.sessionId)).events);
  });

  it("streams from the byte where the page ended, and from the start when that byte is wrong", async () => {
    const { sessionId } = writeLog(10);
    const app = await sqliteApp();
    const page = await getPage(app, sessionId);
    const reads = vi.spyOn(store, "read");
    const next = async (from: number): Promise<SessionEvent[]> => {
      const controller = new AbortController();
      const response = await app.app.request(
        `/api/sessions/${sessionId}/stream?after=${page.lastSeq - 2}&from=${from}`,
        { signal: controller.signal },
      );
      if (response.body === null) throw new Error("no stream");
      const stream = readSse(response.body);
      expect((await stream.next()).value?.event).toBe("ready");
      const message = await stream.next();
      controller.abort();
      await stream.return(undefined);
      return (JSON.parse(String(message.value?.data)) as { events: SessionEvent[] }).events;
    };
    // The offset of the line before the last two events: they come, read from there.
    const whole = await wholeView(app, sessionId);
    const lastTwo = whole.events.slice(-2);
    const lines = readFileSync(store.pathOf(sessionId));
    const secondLast = lines.lastIndexOf(0x0a, lines.lastIndexOf(0x0a, lines.length - 2) - 1) + 1;
    expect(await next(secondLast)).toEqual(lastTwo);
    expect(reads.mock.calls[0]?.[1]?.fromOffset).toBe(secondLast);
    // A wrong offset (a line start elsewhere) is noticed and the stream reads from the start.
    reads.mockClear();
    expect(await next(page.start ?? 0)).toEqual(lastTwo);
    expect(reads.mock.calls.at(-1)?.[1]?.fromOffset).toBeUndefined();
  });
});
