import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { type ScriptStep, scriptedProvider } from "@tapedeck/agent/testing";
import { replayLogText } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createApp,
  createMemoryIndex,
  DEMO_FIXTURES,
  demoLogsFromFixtures,
  loadDemoSessions,
  startServer,
  type WebApp,
} from "../src/server/index";
import { type SeededHome, seedHome } from "./seed";
import { readSse, type SseMessage } from "./sse";

let seeded: SeededHome;
let store: SessionStore;
let web: WebApp;

function makeApp(calls: readonly ScriptStep[] = [], extra: { token?: string } = {}) {
  const provider = scriptedProvider([...calls]);
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: "openai:gpt-4.1-mini", provider: () => provider, cwd: seeded.work },
    ...extra,
  });
  return { app: web.app, provider };
}

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

async function collect(response: Response): Promise<SseMessage[]> {
  const events: SseMessage[] = [];
  if (response.body === null) return events;
  for await (const message of readSse(response.body)) events.push(message);
  return events;
}

/** The sessions of the home, as the store lists them. */
function sessionIds(): Promise<string[]> {
  return store.sessionIds();
}

beforeEach(() => {
  seeded = seedHome();
  store = createSessionStore({ home: seeded.home });
});

afterEach(async () => {
  await web?.close();
  rmSync(seeded.home, { recursive: true, force: true });
  rmSync(seeded.work, { recursive: true, force: true });
});

describe("sessions API", () => {
  it("lists every session newest first with status, and pages by cursor", async () => {
    const { app } = makeApp();
    const first = await (await app.request("/api/sessions?limit=2")).json();
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await (
      await app.request(`/api/sessions?limit=50&cursor=${encodeURIComponent(first.nextCursor)}`)
    ).json();
    const ids = [...first.items, ...second.items].map((item: { id: string }) => item.id);
    expect(new Set(ids)).toEqual(
      new Set([
        seeded.english,
        seeded.chinese,
        seeded.fork,
        seeded.damaged,
        seeded.hostile,
        seeded.rich,
      ]),
    );
    const fork = second.items
      .concat(first.items)
      .find((item: { id: string }) => item.id === seeded.fork);
    expect(fork.parent).toEqual({ sessionId: seeded.english, seq: 9 });
  });

  it("filters sessions by workspace and searches titles in Chinese", async () => {
    const { app } = makeApp();
    const inWorkspace = await (
      await app.request(`/api/sessions?workspace=${encodeURIComponent("/work/茶壶")}`)
    ).json();
    expect(inWorkspace.items.map((item: { id: string }) => item.id)).toEqual([seeded.chinese]);
    const found = await (await app.request(`/api/sessions?q=${encodeURIComponent("茶壶")}`)).json();
    expect(found.items.map((item: { id: string }) => item.id)).toContain(seeded.chinese);
  });

  it("opens a session replay-validated, with its surface and replacements", async () => {
    const { app } = makeApp();
    const response = await app.request(`/api/sessions/${seeded.english}`);
    expect(response.status).toBe(200);
    const view = await response.json();
    expect(view.header.sessionId).toBe(seeded.english);
    expect(view.events).toHaveLength(14);
    expect(view.replacedBy).toContainEqual([6, 12]);
    expect(view.eventCount).toBe(14);
    expect(view.currentSeqs).not.toContain(6);
  });

  it("leaves token chunks out of a session unless asked, with their text per request", async () => {
    const { app } = makeApp([{ text: "Hello", chunks: 2 }]);
    const events = await collect(
      await app.request("/api/agent/stream", json({ input: "hi", policy: "auto" })),
    );
    const { sessionId } = JSON.parse(events[0]?.data ?? "{}");
    const view = await (await app.request(`/api/sessions/${sessionId}`)).json();
    expect(view.events.some((event: { type: string }) => event.type === "assistant/chunk")).toBe(
      false,
    );
    expect(view.streamedText.map(([, text]: [string, string]) => text)).toEqual(["Hello"]);
    expect(view.eventCount).toBeGreaterThan(view.events.length);
    const full = await (await app.request(`/api/sessions/${sessionId}?chunks=true`)).json();
    expect(full.events).toHaveLength(view.eventCount);
    expect((await app.request(`/api/sessions/${sessionId}?chunks=maybe`)).status).toBe(400);
  });

  it("answers 422 with code, line and offset for a damaged log", async () => {
    const { app } = makeApp();
    const response = await app.request(`/api/sessions/${seeded.damaged}`);
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.error).toMatchObject({ code: "BAD_JSON", line: 4 });
    expect(body.error.offset).toBeGreaterThan(0);
    const exported = await app.request(`/api/sessions/${seeded.damaged}/export`);
    expect(exported.status).toBe(422);
  });

  it("rejects hostile ids before touching a file", async () => {
    const { app } = makeApp();
    for (const id of [
      "..%2F..%2Fetc%2Fpasswd",
      "a%00b",
      "abc",
      `${seeded.english.toUpperCase()}`,
      "x".repeat(300),
    ]) {
      const response = await app.request(`/api/sessions/${id}`);
      expect(response.status, id).toBe(400);
      expect((await response.json()).error.field).toBe("sessionId");
    }
    const events = await app.request("/api/events?sessionId=..%2Fx");
    expect(events.status).toBe(400);
    const unknown = await app.request("/api/sessions/01900000-0000-7000-8000-000000000000");
    expect(unknown.status).toBe(404);
  });

  it("answers a bad page query with 400 naming the field, an unknown session's page with 404", async () => {
    const { app } = makeApp();
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=abc", "limit"],
      ["before=0", "before"],
      ["beforeOffset=10", "beforeOffset"],
    ]) {
      const response = await app.request(`/api/sessions/${seeded.english}/page?${query}`);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.field, query).toBe(field);
    }
    const unknownKey = await app.request(`/api/sessions/${seeded.english}/page?sort=asc`);
    expect(unknownKey.status).toBe(400);
    expect((await unknownKey.json()).error.message).toMatch(/sort/);
    const good = await app.request(`/api/sessions/${seeded.english}/page?limit=5`);
    expect(good.status).toBe(200);
    const unknown = await app.request("/api/sessions/01900000-0000-7000-8000-000000000000/page");
    expect(unknown.status).toBe(404);
  });

  it("searches events in English and Chinese with highlighted snippets and filters", async () => {
    const { app } = makeApp();
    const english = await (await app.request("/api/events?q=teapot")).json();
    expect(english.items.length).toBeGreaterThan(0);
    expect(english.items[0].snippet).toContain("\uE000");
    const chinese = await (await app.request(`/api/events?q=${encodeURIComponent("鸣笛")}`)).json();
    expect(chinese.items.map((hit: { sessionId: string }) => hit.sessionId)).toEqual([
      seeded.chinese,
    ]);
    const tools = await (
      await app.request("/api/events?tool=read_file&types=function_call")
    ).json();
    expect(tools.items.map((hit: { event: { callId: string } }) => hit.event.callId)).toEqual([
      "call_readme",
    ]);
    const bad = await app.request("/api/events?types=nope");
    expect(bad.status).toBe(400);
    const unknownParam = await app.request("/api/events?evil=1");
    expect(unknownParam.status).toBe(400);
  });

  it("matches the half-typed last word as a prefix with prefix=last", async () => {
    const { app } = makeApp();
    const events = async (params: string) => {
      const response = await app.request(`/api/events?${params}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { items: Array<{ sessionId: string; snippet: string }> };
    };
    // Whole words by default: "teap" is not a word of any event.
    expect((await events("q=teap")).items).toEqual([]);
    const typed = await events("q=tiny%20teap&prefix=last");
    expect(typed.items.length).toBeGreaterThan(0);
    expect(typed.items.map((hit) => hit.sessionId)).toContain(seeded.english);
    for (const hit of typed.items) expect(hit.snippet).toContain("\uE000teapot\uE001");
    // Only the start of a word: the middle of "teapot" finds nothing.
    expect((await events("q=eapo&prefix=last")).items).toEqual([]);
    const sessions = async (params: string) =>
      (
        (await (await app.request(`/api/sessions?${params}`)).json()) as { items: { id: string }[] }
      ).items.map((item) => item.id);
    expect(await sessions("q=kettle%20proj")).toEqual([]);
    expect(await sessions("q=kettle%20proj&prefix=last")).toEqual([seeded.english]);
    expect((await app.request("/api/events?q=teap&prefix=all")).status).toBe(400);
    expect((await app.request("/api/sessions?q=teap&prefix=yes")).status).toBe(400);
  });

  it("traces an event through its compaction and lists who cites it", async () => {
    const { app } = makeApp();
    const trace = await (
      await app.request(`/api/sessions/${seeded.english}/events/6/trace`)
    ).json();
    expect(trace.replacementChain.map((step: { seq: number }) => step.seq)).toEqual([6, 12]);
    expect(trace.citedBy.map((step: { seq: number }) => step.seq)).toContain(7);
    const missing = await app.request(`/api/sessions/${seeded.english}/events/999/trace`);
    expect(missing.status).toBe(404);
  });

  it("returns lineage with the fork and exports validated JSONL", async () => {
    const { app } = makeApp();
    const lineage = await (await app.request(`/api/sessions/${seeded.fork}/lineage`)).json();
    expect(lineage.ancestors[0].session.id).toBe(seeded.english);
    const exported = await app.request(`/api/sessions/${seeded.english}/export`);
    expect(exported.headers.get("content-disposition")).toContain(`${seeded.english}.jsonl`);
    const session = replayLogText(await exported.text());
    expect(session.lastSeq).toBe(14);
  });

  it("forks at a seq and refuses a body that is not JSON", async () => {
    const { app } = makeApp();
    const response = await app.request(`/api/sessions/${seeded.english}/fork`, json({ seq: 5 }));
    expect(response.status).toBe(201);
    const { sessionId, parent } = await response.json();
    expect(parent).toEqual({ sessionId: seeded.english, seq: 5 });
    expect(existsSync(store.pathOf(sessionId))).toBe(true);
    const form = await app.request(`/api/sessions/${seeded.english}/fork`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"seq":5}',
    });
    expect(form.status).toBe(400);
    const negative = await app.request(`/api/sessions/${seeded.english}/fork`, json({ seq: -1 }));
    expect(negative.status).toBe(400);
  });

  it("refuses a non-loopback Host without a token (DNS rebinding)", async () => {
    const { app } = makeApp();
    const rebound = await app.request("http://evil.example:4848/api/sessions", {
      headers: { host: "evil.example:4848" },
    });
    expect(rebound.status).toBe(403);
    const local = await app.request("http://127.0.0.1:4848/api/sessions", {
      headers: { host: "127.0.0.1:4848" },
    });
    expect(local.status).toBe(200);
  });

  it("refuses cross-origin requests", async () => {
    const { app } = makeApp();
    const response = await app.request("http://127.0.0.1:4848/api/sessions", {
      headers: { origin: "http://evil.example", host: "127.0.0.1:4848" },
    });
    expect(response.status).toBe(403);
  });

  it("lists a turn left open by a dead process as interrupted, and a running one as active", async () => {
    const { app } = makeApp();
    const created = await store.create({ cwd: seeded.home });
    const writer = await store.openWriter(created.sessionId);
    await writer.append([
      {
        type: "turn/start",
        runId: created.events[0]?.runId ?? "r",
        policy: { approval: "auto" },
        model: "m",
        resumed: false,
      },
      { type: "message", runId: "r", role: "user", content: "Still going?" },
    ]);
    const statusOf = async (filter = "") => {
      const page = (await (await app.request(`/api/sessions?limit=200${filter}`)).json()) as {
        items: { id: string; status: string }[];
      };
      return page.items.find((item) => item.id === created.sessionId)?.status;
    };
    try {
      expect(await statusOf()).toBe("active");
      expect(await statusOf("&status=active")).toBe("active");
    } finally {
      await writer.close();
    }
    expect(await statusOf()).toBe("interrupted");
    expect(await statusOf("&status=active")).toBeUndefined();
  });
});

describe("token rule", () => {
  it("requires the token on every API request when one is set", async () => {
    const { app } = makeApp([], { token: "s3cret" });
    expect((await app.request("/api/sessions")).status).toBe(401);
    expect((await app.request("/api/sessions?token=wrong")).status).toBe(401);
    const ok = await app.request("/api/sessions", { headers: { authorization: "Bearer s3cret" } });
    expect(ok.status).toBe(200);
  });

  it("refuses to listen on a non-loopback host without a token", async () => {
    const { app } = makeApp();
    await expect(startServer(app, { host: "0.0.0.0", port: 0 })).rejects.toThrow(
      /TAPEDECK_WEB_TOKEN/,
    );
    const server = await startServer(app, { host: "127.0.0.1", port: 0 });
    try {
      const response = await fetch(`${server.url}/api/health`);
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("agent API", () => {
  it("streams a new run with run_started first and run_finished last", async () => {
    const { app } = makeApp([{ text: "Hello there" }]);
    const before = (await sessionIds()).length;
    const response = await app.request(
      "/api/agent/stream",
      json({ input: "Say hello", policy: "auto" }),
    );
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await collect(response);
    expect(events[0]?.event).toBe("run_started");
    expect(events.at(-1)?.event).toBe("run_finished");
    const started = JSON.parse(events[0]?.data ?? "{}");
    expect(started).toMatchObject({ resumed: false, policy: { approval: "auto" } });
    const text = events.filter((e) => e.event === "text_delta").map((e) => JSON.parse(e.data).text);
    expect(text.join("")).toBe("Hello there");
    expect((await sessionIds()).length).toBe(before + 1);
    const session = await store.readSession(started.sessionId);
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });
  });

  it("offers the model the same tools as the CLI and editors, session_query included", async () => {
    const { app, provider } = makeApp([{ text: "Hi." }]);
    await collect(await app.request("/api/agent/stream", json({ input: "Which tools?" })));
    const names = provider.requests[0]?.tools.map((tool) => tool.name);
    expect(names).toContain("session_query");
    expect(names).toEqual(expect.arrayContaining(["read_file", "write_file", "run_command"]));
  });

  it("continues a session: resumed run, same sessionId, both turns sent to the model", async () => {
    const { app, provider } = makeApp([{ text: "Still the kettle." }]);
    const events = await collect(
      await app.request(
        "/api/agent/stream",
        json({ input: "And now?", sessionId: seeded.english }),
      ),
    );
    const started = JSON.parse(events[0]?.data ?? "{}");
    expect(started).toMatchObject({ sessionId: seeded.english, resumed: true });
    const sent = provider.requests[0]?.input.map((item) =>
      item.type === "message" ? item.content : item.type,
    );
    expect(sent).toContain("And now?");
    expect(sent?.join(" ")).toContain("kettle README");
  });

  it("forks and runs in the child with forkFrom, leaving the parent untouched", async () => {
    const { app } = makeApp([{ text: "From the fork." }]);
    const before = (await store.readSession(seeded.english)).lastSeq;
    const events = await collect(
      await app.request(
        "/api/agent/stream",
        json({ input: "Try another way", forkFrom: { sessionId: seeded.english, seq: 9 } }),
      ),
    );
    const started = JSON.parse(events[0]?.data ?? "{}");
    expect(started.resumed).toBe(true);
    expect(started.sessionId).not.toBe(seeded.english);
    expect((await store.readHeader(started.sessionId)).parent).toEqual({
      sessionId: seeded.english,
      seq: 9,
    });
    expect((await store.readSession(seeded.english)).lastSeq).toBe(before);
    expect(events.at(-1)?.event).toBe("run_finished");
  });

  it("answers an unknown sessionId with one SSE error and creates nothing", async () => {
    const { app } = makeApp([{ text: "never" }]);
    const before = await sessionIds();
    const events = await collect(
      await app.request(
        "/api/agent/stream",
        json({ input: "hi", sessionId: "01900000-0000-7000-8000-000000000000" }),
      ),
    );
    expect(events.map((e) => e.event)).toEqual(["error"]);
    expect(JSON.parse(events[0]?.data ?? "{}").code).toBe("SESSION_NOT_FOUND");
    expect(await sessionIds()).toEqual(before);
  });

  it("answers 409 for a session another writer holds", async () => {
    const { app } = makeApp([{ text: "never" }]);
    const writer = await store.openWriter(seeded.chinese);
    try {
      const response = await app.request(
        "/api/agent/stream",
        json({ input: "hi", sessionId: seeded.chinese }),
      );
      expect(response.status).toBe(409);
      expect((await response.json()).error.code).toBe("SESSION_BUSY");
    } finally {
      await writer.close();
    }
  });

  it("asks for approval, runs the tool once approved, then finishes", async () => {
    const { app } = makeApp([
      {
        calls: [
          {
            callId: "call_w1",
            name: "write_file",
            arguments: { path: "notes.txt", content: "hi" },
          },
        ],
      },
      { text: "Wrote notes.txt" },
    ]);
    const response = await app.request(
      "/api/agent/stream",
      json({ input: "write a note", policy: "ask" }),
    );
    const seen: string[] = [];
    if (response.body === null) throw new Error("no body");
    for await (const message of readSse(response.body)) {
      seen.push(message.event);
      if (message.event === "approval_request") {
        const request = JSON.parse(message.data);
        const runs = await (await app.request("/api/agent/runs")).json();
        expect(runs.items[0].status).toBe("waiting_approval");
        const answer = await app.request(
          `/api/agent/approvals/${request.runId}/${request.callId}`,
          json({ decision: "allow_once" }),
        );
        expect(answer.status).toBe(200);
      }
    }
    expect(seen.indexOf("approval_request")).toBeGreaterThan(0);
    expect(seen.indexOf("tool_result")).toBeGreaterThan(seen.indexOf("approval_request"));
    expect(seen.at(-1)).toBe("run_finished");
    expect(existsSync(path.join(seeded.work, "notes.txt"))).toBe(true);
  });

  it("rejects an approval for an unknown run and a bad decision", async () => {
    const { app } = makeApp();
    const runId = "01900000-0000-7000-8000-000000000000";
    expect(
      (await app.request(`/api/agent/approvals/${runId}/c1`, json({ decision: "allow_once" })))
        .status,
    ).toBe(404);
    expect(
      (await app.request(`/api/agent/approvals/${runId}/c1`, json({ decision: "yes" }))).status,
    ).toBe(400);
  });

  it("cancels a run in progress", async () => {
    const { app } = makeApp([{ hang: true, text: "Thinking" }]);
    const response = await app.request("/api/agent/stream", json({ input: "think hard" }));
    if (response.body === null) throw new Error("no body");
    let finished: { status: string } | undefined;
    for await (const message of readSse(response.body)) {
      if (message.event === "text_delta") {
        const { runId } = JSON.parse(message.data);
        expect((await app.request(`/api/agent/cancel/${runId}`, { method: "POST" })).status).toBe(
          200,
        );
      }
      if (message.event === "run_finished") finished = JSON.parse(message.data);
    }
    expect(finished?.status).toBe("cancelled");
    expect(
      (
        await app.request(`/api/agent/cancel/01900000-0000-7000-8000-000000000000`, {
          method: "POST",
        })
      ).status,
    ).toBe(404);
  });

  it("validates the run body", async () => {
    const { app } = makeApp();
    expect((await app.request("/api/agent/stream", json({ input: "" }))).status).toBe(400);
    expect(
      (await app.request("/api/agent/stream", json({ input: "x", sessionId: "../x" }))).status,
    ).toBe(400);
    expect(
      (
        await app.request(
          "/api/agent/stream",
          json({ input: "x", sessionId: seeded.english, forkFrom: { sessionId: seeded.english } }),
        )
      ).status,
    ).toBe(400);
  });

  it("says exactly what to set when no model is configured, and the viewer still works", async () => {
    web = createApp({
      store,
      index: createMemoryIndex(store),
      agent: { model: "openai:gpt-4.1-mini", env: {} },
    });
    const config = await (await web.app.request("/api/config")).json();
    expect(config.model.configured).toBe(false);
    expect(config.model.message).toContain("OPENAI_API_KEY");
    expect(config.model.message).toContain("TAPEDECK_MODEL");
    expect(config.model.message).toContain("OPENAI_BASE_URL");
    const response = await web.app.request("/api/agent/stream", json({ input: "hi" }));
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe("MODEL_NOT_CONFIGURED");
    expect((await web.app.request("/api/sessions")).status).toBe(200);
  });

  it("POST /api/agent ignores a sessionId (stateless) instead of answering 400", async () => {
    const { app } = makeApp([{ text: "4" }]);
    const before = await sessionIds();
    const response = await app.request(
      "/api/agent",
      json({ input: "2+2?", sessionId: seeded.english }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "4" });
    expect(await sessionIds()).toEqual(before);
  });

  it("session lists carry short ids unique in the home", async () => {
    const { app } = makeApp();
    const page = await (await app.request("/api/sessions?limit=50")).json();
    const shorts = page.items.map((item: { shortId: string }) => item.shortId);
    expect(new Set(shorts).size).toBe(page.items.length);
    for (const item of page.items as { id: string; shortId: string }[]) {
      expect(item.id.startsWith(item.shortId)).toBe(true);
      expect(item.shortId.length).toBeGreaterThanOrEqual(8);
    }
  });

  it("answers one stateless prompt without creating a session", async () => {
    const { app } = makeApp([{ text: "4" }]);
    const before = await sessionIds();
    const response = await app.request("/api/agent", json({ input: "2+2?" }));
    expect(await response.json()).toEqual({ text: "4" });
    expect(await sessionIds()).toEqual(before);
  });
});

describe("demo sessions", () => {
  it("copies the recorded fixtures into the demo workspace once, and only when asked", async () => {
    const demoLogs = await demoLogsFromFixtures();
    if (demoLogs === undefined) throw new Error("@tapedeck/fixtures is a dev dependency");
    web = createApp({
      store,
      index: createMemoryIndex(store),
      agent: { model: "openai:gpt-4.1-mini", env: {} },
      demoLogs,
    });
    const before = (await sessionIds()).length;
    expect((await (await web.app.request("/api/config")).json()).demoAvailable).toBe(true);
    expect(await sessionIds()).toHaveLength(before);
    const first = await (await web.app.request("/api/demo", json({}))).json();
    expect(first.added).toHaveLength(DEMO_FIXTURES.length);
    expect(await sessionIds()).toHaveLength(before + DEMO_FIXTURES.length);
    const second = await (await web.app.request("/api/demo", json({}))).json();
    expect(second).toEqual({ added: [], skipped: expect.arrayContaining(first.added) });
    const listed = await (await web.app.request("/api/sessions?workspace=demo&limit=50")).json();
    expect(listed.items).toHaveLength(DEMO_FIXTURES.length);
    const fork = listed.items.find((item: { parent: unknown }) => item.parent !== null);
    expect((await web.app.request(`/api/sessions/${fork.id}`)).status).toBe(200);
  });

  it("validates every demo log before writing any", async () => {
    const good = eventLogBuilder().turn().user("fine").end().jsonl();
    const bad = eventLogBuilder().turn().user("broken").jsonl().replace('"seq":2', '"seq":5');
    await expect(loadDemoSessions(store, [good, bad])).rejects.toThrow(/SEQ_GAP/);
    expect(await sessionIds()).toHaveLength(6);
    const { app } = makeApp();
    expect((await app.request("/api/demo", json({}))).status).toBe(404);
  });
});

/** Holds the store's next `changesSince` call until `release()`; `first` spies on the calls. */
function holdFirstChangesSince() {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const changesSince = store.changesSince.bind(store);
  const first = vi.spyOn(store, "changesSince").mockImplementationOnce(async (cursor) => {
    await held;
    return changesSince(cursor);
  });
  return { release: () => release(), first };
}

/** Creates a session in `workspaceId` and expects `/api/live`'s next message to report it. */
async function expectCreationReported(
  stream: AsyncGenerator<SseMessage>,
  workspaceId: string,
): Promise<{ sessionId: string }> {
  const created = await store.create({ cwd: seeded.home, workspaceId });
  await web.live.tick();
  const message = (await stream.next()).value;
  expect(message?.event).toBe("changes");
  expect(JSON.parse(message?.data ?? "{}").changes).toContainEqual(
    expect.objectContaining({ sessionId: created.sessionId, created: true }),
  );
  return created;
}

describe("live changes", () => {
  it("reports a session appended by another process over /api/live", async () => {
    const { app } = makeApp();
    web.live.stop();
    const response = await app.request("/api/live");
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    await web.live.tick();
    const created = await expectCreationReported(stream, "elsewhere");
    await stream.return(undefined);
    const list = await (await app.request("/api/sessions?workspace=elsewhere")).json();
    expect(list.items.map((item: { id: string }) => item.id)).toEqual([created.sessionId]);
  });

  it("sends ready on /api/live only after the watcher's first view: a log written after ready is reported", async () => {
    const { app } = makeApp();
    // Hold the watcher's first look at the change feed until the test lets it go.
    const { release, first } = holdFirstChangesSince();
    const response = await app.request("/api/live");
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    const ready = stream.next();
    const waited = new Promise((resolve) => setTimeout(() => resolve("still waiting"), 200));
    // Before the first view, "ready" would promise what the watcher cannot keep.
    expect(await Promise.race([ready.then(() => "ready"), waited])).toBe("still waiting");
    release();
    expect((await ready).value?.event).toBe("ready");
    await expectCreationReported(stream, "after-ready");
    await stream.return(undefined);
    first.mockRestore();
  });

  it("after a stop and start while a tick still runs, ready() waits for a view taken after it", async () => {
    makeApp();
    const { release, first } = holdFirstChangesSince();
    web.live.start();
    web.live.stop();
    web.live.start();
    let ready = false;
    const readied = web.live.ready().then(() => {
      ready = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ready).toBe(false);
    release();
    await readied;
    // The held look and one after it.
    expect(first.mock.calls.length).toBeGreaterThanOrEqual(2);
    first.mockRestore();
  });

  it("streams one session's events after the seq the page has, reading only appended bytes", async () => {
    const { app } = makeApp();
    web.live.stop();
    await web.live.tick();
    const { sessionId } = await store.create({ cwd: seeded.home, workspaceId: "streamed" });
    const runId = "run-stream";
    const start = {
      type: "turn/start",
      runId,
      policy: { approval: "auto" },
      model: "m",
      resumed: false,
    } as const;
    await store.append(sessionId, [
      start,
      { type: "message", runId, role: "user", content: "one" },
    ]);
    const read = vi.spyOn(store, "read");
    // The stream's own reads (the in-memory test index re-reads changed logs by itself).
    const streamReads = () => read.mock.calls.filter(([, options]) => options?.tornTail === "stop");
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=1`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    const first = (await stream.next()).value;
    expect(
      JSON.parse(first?.data ?? "{}").events.map((event: { seq: number }) => event.seq),
    ).toEqual([2]);
    for (const [index, content] of ["two", "three", "four"].entries()) {
      const sizeBefore = store.entry(sessionId)?.size;
      await store.append(sessionId, [{ type: "message", runId, role: "user", content }]);
      await web.live.tick();
      const message = (await stream.next()).value;
      expect(message?.event).toBe("events");
      const events = JSON.parse(message?.data ?? "{}").events as { seq: number; content: string }[];
      expect(events.map((event) => [event.seq, event.content])).toEqual([[3 + index, content]]);
      // The read for this change started where the last one stopped: no re-read of the session.
      expect(streamReads().at(-1)?.[1]?.fromOffset).toBe(sizeBefore);
    }
    expect(streamReads()).toHaveLength(4);
    await stream.return(undefined);
    read.mockRestore();
  });

  it("reports an append whose journal record a tick saw before the log's bytes", async () => {
    makeApp();
    web.live.stop();
    const { sessionId } = await store.create({ cwd: seeded.home, workspaceId: "raced" });
    await web.live.tick();
    const before = store.entry(sessionId);
    // The store writes the journal record first: a tick between it and the log's bytes finds the
    // session named but its log unchanged (simulated by the entry as it was before the append).
    const entry = vi.spyOn(store, "entry").mockReturnValue(before);
    await store.append(sessionId, [{ type: "x-race", runId: "r" } as never]);
    expect(await web.live.tick()).toEqual([]);
    entry.mockRestore();
    expect(await web.live.tick()).toContainEqual(
      expect.objectContaining({ sessionId, created: false }),
    );
  });

  it("an append just after a stream opens reaches it, before the live feed ever ticked", async () => {
    const { app } = makeApp();
    const { sessionId } = await store.create({ cwd: seeded.home, workspaceId: "first-tick" });
    // The stream starts the live feed; its first look at the logs must come before the append,
    // or the append is part of that first view and never reported (the page waited forever).
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=0`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    await store.append(sessionId, [{ type: "x-first", runId: "r" } as never]);
    const next = await Promise.race([
      stream.next(),
      new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 3_000)),
    ]);
    expect(next === "timeout" ? next : next.value?.event).toBe("events");
    await stream.return(undefined);
  });

  it("a log cut mid-line under an open stream: it waits at the torn line, and continues after a repair", async () => {
    const { app } = makeApp();
    web.live.stop();
    await web.live.tick();
    const { sessionId } = await store.create({ cwd: seeded.home, workspaceId: "cut" });
    const runId = "run-cut";
    const message = (content: string) =>
      ({ type: "message", runId, role: "user", content }) as const;
    await store.append(sessionId, [
      { type: "turn/start", runId, policy: { approval: "auto" }, model: "m", resumed: false },
      message("kept"),
    ]);
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=0`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    const seqsOf = (data: string | undefined) =>
      (JSON.parse(data ?? "{}").events as { seq: number }[]).map((event) => event.seq);
    expect(seqsOf((await stream.next()).value?.data)).toEqual([1, 2]);
    const errors = vi.spyOn(console, "error");
    const within = (ms: number) =>
      Promise.race([
        stream.next(),
        new Promise<"nothing">((resolve) => setTimeout(() => resolve("nothing"), ms)),
      ]);
    // A writer died in the middle of a line: the stream sends nothing and waits.
    const path = store.pathOf(sessionId);
    appendFileSync(path, '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"mess');
    store.announceChange(sessionId);
    await web.live.tick();
    const waiting = stream.next();
    expect(
      await Promise.race([waiting, new Promise((r) => setTimeout(() => r("nothing"), 300))]),
    ).toBe("nothing");
    // Resuming repairs the torn tail (the fragment moves aside) and appends: the stream goes on.
    await store.repair(sessionId);
    await store.append(sessionId, [message("after the repair")]);
    await web.live.tick();
    const next = (await waiting).value;
    expect(next?.event).toBe("events");
    expect(seqsOf(next?.data)).toEqual([3]);
    // Another program cuts the log below where the stream stopped (whole lines of seq 3 gone):
    // the stream reads the log again from its start instead of failing, and goes on.
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1));
    store.announceChange(sessionId);
    await web.live.tick();
    await store.append(sessionId, [message("three again"), message("four")]);
    await web.live.tick();
    const later = await within(3_000);
    expect(later === "nothing" ? later : seqsOf(later.value?.data)).toEqual([4]);
    // A line that is not JSON: the events before it are sent, then the stream follows no more
    // (and stays open: no reconnect loop re-reading the log).
    appendFileSync(
      path,
      `${JSON.stringify({ ...message("five"), seq: 5, ts: "2026-01-01T00:00:00.000Z" })}\nnot json\n`,
    );
    store.announceChange(sessionId);
    await web.live.tick();
    const fifth = await within(3_000);
    expect(fifth === "nothing" ? fifth : seqsOf(fifth.value?.data)).toEqual([5]);
    appendFileSync(path, "more\n");
    store.announceChange(sessionId);
    await web.live.tick();
    expect(await within(300)).toBe("nothing");
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
    // A read is still pending (the stream stays open): end the generator without waiting for it.
    void stream.return(undefined);
  });

  it.each([
    ["deleted", (log: string) => rmSync(log)],
    // Replaced by another program with what the store never reads through (a read of it
    // fails with LOG_NOT_A_FILE): failed the stream with a stack, as a deletion did.
    [
      "replaced by a symbolic link",
      (log: string) => {
        renameSync(log, `${log}.moved`);
        symlinkSync(`${log}.moved`, log);
      },
    ],
    [
      "replaced by a folder",
      (log: string) => {
        rmSync(log);
        mkdirSync(log);
      },
    ],
  ])("ends a session's stream when its log is %s by hand", async (_how, replace) => {
    const { app } = makeApp();
    web.live.stop();
    await web.live.tick();
    const { sessionId } = await store.create({ cwd: seeded.home, workspaceId: "gone" });
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=0`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    const errors = vi.spyOn(console, "error");
    replace(store.pathOf(sessionId));
    await web.live.tick();
    const end = await Promise.race([
      stream.next(),
      new Promise<"open">((resolve) => setTimeout(() => resolve("open"), 3_000)),
    ]);
    expect(end === "open" ? end : end.done).toBe(true);
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it("a quiet tick of the live feed looks at no log", async () => {
    makeApp();
    web.live.stop();
    await web.live.tick();
    const entry = vi.spyOn(store, "entry");
    const scan = vi.spyOn(store, "scan");
    expect(await web.live.tick()).toEqual([]);
    expect(entry).not.toHaveBeenCalled();
    expect(scan).not.toHaveBeenCalled();
    entry.mockRestore();
    scan.mockRestore();
  });
});
