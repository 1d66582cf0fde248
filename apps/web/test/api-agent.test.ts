/**
 * The agent API: streamed runs (new, continued, forked), approvals, cancel, validation, the
 * stateless prompt.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createApp, createMemoryIndex } from "../src/server/index";
import { json, setupApiHome } from "./api-home";
import { collect, readSse } from "./sse";

const api = setupApiHome();
const { makeApp, sessionIds } = api;

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
    const session = await api.store.readSession(started.sessionId);
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
        json({ input: "And now?", sessionId: api.seeded.english }),
      ),
    );
    const started = JSON.parse(events[0]?.data ?? "{}");
    expect(started).toMatchObject({ sessionId: api.seeded.english, resumed: true });
    // A seeded log never ran in this home: its first run here says where it will work.
    expect(started.notice).toBe(
      `Session ${api.seeded.english} has not run in this home before: it will work in ${api.seeded.work}.`,
    );
    const sent = provider.requests[0]?.input.map((item) =>
      item.type === "message" ? item.content : item.type,
    );
    expect(sent).toContain("And now?");
    expect(sent?.join(" ")).toContain("kettle README");
  });

  it("forks and runs in the child with forkFrom, leaving the parent untouched", async () => {
    const { app } = makeApp([{ text: "From the fork." }]);
    const before = (await api.store.readSession(api.seeded.english)).lastSeq;
    const events = await collect(
      await app.request(
        "/api/agent/stream",
        json({ input: "Try another way", forkFrom: { sessionId: api.seeded.english, seq: 9 } }),
      ),
    );
    const started = JSON.parse(events[0]?.data ?? "{}");
    expect(started.resumed).toBe(true);
    expect(started.sessionId).not.toBe(api.seeded.english);
    // A fork is a new session: its first run is named after it.
    expect(started.runId).toBe(started.sessionId);
    expect((await api.store.readHeader(started.sessionId)).parent).toEqual({
      sessionId: api.seeded.english,
      seq: 9,
    });
    expect((await api.store.readSession(api.seeded.english)).lastSeq).toBe(before);
    expect(events.at(-1)?.event).toBe("run_finished");
  });

  it("names the first run of a session forked ahead (POST /fork) after the fork", async () => {
    const { app } = makeApp([{ text: "From the fork." }, { text: "Again." }]);
    const forked = await app.request(`/api/sessions/${api.seeded.english}/fork`, json({ seq: 9 }));
    const { sessionId } = await forked.json();
    const first = await collect(
      await app.request("/api/agent/stream", json({ input: "Try another way", sessionId })),
    );
    expect(JSON.parse(first[0]?.data ?? "{}")).toMatchObject({ sessionId, runId: sessionId });
    const second = await collect(
      await app.request("/api/agent/stream", json({ input: "Once more", sessionId })),
    );
    const again = JSON.parse(second[0]?.data ?? "{}");
    expect(again.sessionId).toBe(sessionId);
    expect(again.runId).not.toBe(sessionId);
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
    const writer = await api.store.openWriter(api.seeded.chinese);
    try {
      const response = await app.request(
        "/api/agent/stream",
        json({ input: "hi", sessionId: api.seeded.chinese }),
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
    expect(existsSync(path.join(api.seeded.work, "notes.txt"))).toBe(true);
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
          json({
            input: "x",
            sessionId: api.seeded.english,
            forkFrom: { sessionId: api.seeded.english },
          }),
        )
      ).status,
    ).toBe(400);
  });

  it("says exactly what to set when no model is configured, and the viewer still works", async () => {
    api.web = createApp({
      store: api.store,
      index: createMemoryIndex(api.store),
      agent: { model: "openai:gpt-4.1-mini", env: {} },
    });
    const config = await (await api.web.app.request("/api/config")).json();
    expect(config.model.configured).toBe(false);
    expect(config.model.message).toContain("OPENAI_API_KEY");
    expect(config.model.message).toContain("TAPEDECK_MODEL");
    expect(config.model.message).toContain("OPENAI_BASE_URL");
    const response = await api.web.app.request("/api/agent/stream", json({ input: "hi" }));
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe("MODEL_NOT_CONFIGURED");
    expect((await api.web.app.request("/api/sessions")).status).toBe(200);
  });

  it("POST /api/agent ignores a sessionId (stateless) instead of answering 400", async () => {
    const { app } = makeApp([{ text: "4" }]);
    const before = await sessionIds();
    const response = await app.request(
      "/api/agent",
      json({ input: "2+2?", sessionId: api.seeded.english }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "4" });
    expect(await sessionIds()).toEqual(before);
  });

  it("answers one stateless prompt without creating a session", async () => {
    const { app } = makeApp([{ text: "4" }]);
    const before = await sessionIds();
    const response = await app.request("/api/agent", json({ input: "2+2?" }));
    expect(await response.json()).toEqual({ text: "4" });
    expect(await sessionIds()).toEqual(before);
  });
});
