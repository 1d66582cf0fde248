/** The sessions API: list, filter and search, open, page, trace, lineage, export and fork. */
import { existsSync } from "node:fs";
import { replayLogText } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { json, setupApiHome } from "./api-home";
import { collect } from "./sse";

const api = setupApiHome();
const { makeApp } = api;

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
        api.seeded.english,
        api.seeded.chinese,
        api.seeded.fork,
        api.seeded.damaged,
        api.seeded.hostile,
        api.seeded.rich,
      ]),
    );
    const fork = second.items
      .concat(first.items)
      .find((item: { id: string }) => item.id === api.seeded.fork);
    expect(fork.parent).toEqual({ sessionId: api.seeded.english, seq: 9 });
  });

  it("filters sessions by workspace and searches titles in Chinese", async () => {
    const { app } = makeApp();
    const inWorkspace = await (
      await app.request(`/api/sessions?workspace=${encodeURIComponent("/work/茶壶")}`)
    ).json();
    expect(inWorkspace.items.map((item: { id: string }) => item.id)).toEqual([api.seeded.chinese]);
    const found = await (await app.request(`/api/sessions?q=${encodeURIComponent("茶壶")}`)).json();
    expect(found.items.map((item: { id: string }) => item.id)).toContain(api.seeded.chinese);
  });

  it("opens a session replay-validated, with its surface and replacements", async () => {
    const { app } = makeApp();
    const response = await app.request(`/api/sessions/${api.seeded.english}`);
    expect(response.status).toBe(200);
    const view = await response.json();
    expect(view.header.sessionId).toBe(api.seeded.english);
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
    const response = await app.request(`/api/sessions/${api.seeded.damaged}`);
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.error).toMatchObject({ code: "BAD_JSON", line: 4 });
    expect(body.error.offset).toBeGreaterThan(0);
    const exported = await app.request(`/api/sessions/${api.seeded.damaged}/export`);
    expect(exported.status).toBe(422);
  });

  it("rejects hostile ids before touching a file", async () => {
    const { app } = makeApp();
    for (const id of [
      "..%2F..%2Fetc%2Fpasswd",
      "a%00b",
      "abc",
      `${api.seeded.english.toUpperCase()}`,
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
      const response = await app.request(`/api/sessions/${api.seeded.english}/page?${query}`);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.field, query).toBe(field);
    }
    const unknownKey = await app.request(`/api/sessions/${api.seeded.english}/page?sort=asc`);
    expect(unknownKey.status).toBe(400);
    expect((await unknownKey.json()).error.message).toMatch(/sort/);
    const good = await app.request(`/api/sessions/${api.seeded.english}/page?limit=5`);
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
      api.seeded.chinese,
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
    expect(typed.items.map((hit) => hit.sessionId)).toContain(api.seeded.english);
    for (const hit of typed.items) expect(hit.snippet).toContain("\uE000teapot\uE001");
    // Only the start of a word: the middle of "teapot" finds nothing.
    expect((await events("q=eapo&prefix=last")).items).toEqual([]);
    const sessions = async (params: string) =>
      (
        (await (await app.request(`/api/sessions?${params}`)).json()) as { items: { id: string }[] }
      ).items.map((item) => item.id);
    expect(await sessions("q=kettle%20proj")).toEqual([]);
    expect(await sessions("q=kettle%20proj&prefix=last")).toEqual([api.seeded.english]);
    expect((await app.request("/api/events?q=teap&prefix=all")).status).toBe(400);
    expect((await app.request("/api/sessions?q=teap&prefix=yes")).status).toBe(400);
  });

  it("traces an event through its compaction and lists who cites it", async () => {
    const { app } = makeApp();
    const trace = await (
      await app.request(`/api/sessions/${api.seeded.english}/events/6/trace`)
    ).json();
    expect(trace.replacementChain.map((step: { seq: number }) => step.seq)).toEqual([6, 12]);
    expect(trace.citedBy.map((step: { seq: number }) => step.seq)).toContain(7);
    const missing = await app.request(`/api/sessions/${api.seeded.english}/events/999/trace`);
    expect(missing.status).toBe(404);
  });

  it("returns lineage with the fork and exports validated JSONL", async () => {
    const { app } = makeApp();
    const lineage = await (await app.request(`/api/sessions/${api.seeded.fork}/lineage`)).json();
    expect(lineage.ancestors[0].session.id).toBe(api.seeded.english);
    const exported = await app.request(`/api/sessions/${api.seeded.english}/export`);
    expect(exported.headers.get("content-disposition")).toContain(`${api.seeded.english}.jsonl`);
    const session = replayLogText(await exported.text());
    expect(session.lastSeq).toBe(14);
  });

  it("forks at a seq and refuses a body that is not JSON", async () => {
    const { app } = makeApp();
    const response = await app.request(
      `/api/sessions/${api.seeded.english}/fork`,
      json({ seq: 5 }),
    );
    expect(response.status).toBe(201);
    const { sessionId, parent } = await response.json();
    expect(parent).toEqual({ sessionId: api.seeded.english, seq: 5 });
    expect(existsSync(api.store.pathOf(sessionId))).toBe(true);
    const form = await app.request(`/api/sessions/${api.seeded.english}/fork`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"seq":5}',
    });
    expect(form.status).toBe(400);
    const negative = await app.request(
      `/api/sessions/${api.seeded.english}/fork`,
      json({ seq: -1 }),
    );
    expect(negative.status).toBe(400);
  });

  it("lists a turn left open by a dead process as interrupted, and a running one as active", async () => {
    const { app } = makeApp();
    const created = await api.store.create({ cwd: api.seeded.home });
    const writer = await api.store.openWriter(created.sessionId);
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
});
