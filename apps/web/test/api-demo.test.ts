/** The demo sessions: copied from the recorded fixtures once, on request, all validated first. */
import { eventLogBuilder } from "@tapedeck/session/testing";
import { describe, expect, it } from "vitest";
import {
  createApp,
  createMemoryIndex,
  DEMO_FIXTURES,
  demoLogsFromFixtures,
  loadDemoSessions,
} from "../src/server/index";
import { json, setupApiHome } from "./api-home";

const api = setupApiHome();
const { makeApp, sessionIds } = api;

describe("demo sessions", () => {
  it("copies the recorded fixtures into the demo workspace once, and only when asked", async () => {
    const demoLogs = await demoLogsFromFixtures();
    if (demoLogs === undefined) throw new Error("@tapedeck/fixtures is a dev dependency");
    api.web = createApp({
      store: api.store,
      index: createMemoryIndex(api.store),
      agent: { model: "openai:gpt-4.1-mini", env: {} },
      demoLogs,
    });
    const before = (await sessionIds()).length;
    expect((await (await api.web.app.request("/api/config")).json()).demoAvailable).toBe(true);
    expect(await sessionIds()).toHaveLength(before);
    const first = await (await api.web.app.request("/api/demo", json({}))).json();
    expect(first.added).toHaveLength(DEMO_FIXTURES.length);
    expect(await sessionIds()).toHaveLength(before + DEMO_FIXTURES.length);
    const second = await (await api.web.app.request("/api/demo", json({}))).json();
    expect(second).toEqual({ added: [], skipped: expect.arrayContaining(first.added) });
    const listed = await (
      await api.web.app.request("/api/sessions?workspace=demo&limit=50")
    ).json();
    expect(listed.items).toHaveLength(DEMO_FIXTURES.length);
    const fork = listed.items.find((item: { parent: unknown }) => item.parent !== null);
    expect((await api.web.app.request(`/api/sessions/${fork.id}`)).status).toBe(200);
  });

  it("validates every demo log before writing any", async () => {
    const good = eventLogBuilder().turn().user("fine").end().jsonl();
    const bad = eventLogBuilder().turn().user("broken").jsonl().replace('"seq":2', '"seq":5');
    await expect(loadDemoSessions(api.store, [good, bad])).rejects.toThrow(/SEQ_GAP/);
    expect(await sessionIds()).toHaveLength(6);
    const { app } = makeApp();
    expect((await app.request("/api/demo", json({}))).status).toBe(404);
  });
});
