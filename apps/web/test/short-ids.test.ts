import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApp, createMemoryIndex, type WebApp } from "../src/server/index";

// Two sessions of the same minute: their first 8 characters are the same.
const parentId = "0193aaaa-1111-7000-8000-000000000001";
const childId = "0193aaaa-2222-7000-8000-000000000002";

let home: string;
let store: SessionStore;
let web: WebApp;

beforeEach(async () => {
  home = mkdtempSync(path.join(tmpdir(), "tapedeck-short-"));
  store = createSessionStore({ home });
  await store.create({
    cwd: home,
    sessionId: parentId,
    seed: [{ type: "message", runId: parentId, role: "system", content: "s" }],
  });
  await store.fork(parentId, { sessionId: childId });
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: "openai:gpt-4.1-mini" },
  });
});

afterEach(async () => {
  await web.close();
  rmSync(home, { recursive: true, force: true });
});

const getJson = async (url: string) => {
  const response = await web.app.request(url);
  expect(response.status).toBe(200);
  return response.json();
};

it("session detail, lineage and /api/short-ids name two sessions sharing 8 characters apart", async () => {
  const expected = { [parentId]: "0193aaaa-1", [childId]: "0193aaaa-2" };
  expect((await getJson(`/api/sessions/${childId}`)).shortIds).toEqual(expected);
  expect((await getJson(`/api/sessions/${childId}/lineage`)).shortIds).toEqual(expected);
  expect((await getJson(`/api/short-ids?ids=${parentId},${childId}`)).shortIds).toEqual(expected);
  const list = await getJson("/api/sessions?limit=10");
  expect(
    Object.fromEntries(
      list.items.map((item: { id: string; shortId: string }) => [item.id, item.shortId]),
    ),
  ).toEqual(expected);
});

it("the HTML export names the parent and the fork by their short ids, not an 8-character prefix", async () => {
  const response = await web.app.request(`/api/sessions/${childId}/export/html`);
  expect(response.status).toBe(200);
  const html = await response.text();
  expect(html).toContain("<code>0193aaaa-1</code>");
  expect(html).toContain("<code>0193aaaa-2</code>");
  expect(html).not.toContain("<code>0193aaaa</code>");
});

it("refuses /api/short-ids for something that is not a session id", async () => {
  expect((await web.app.request("/api/short-ids?ids=../etc")).status).toBe(400);
});
