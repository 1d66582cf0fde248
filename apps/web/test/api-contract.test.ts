/**
 * The client and the server agree at run time too: the contract names exactly the routes the
 * server registers, and the client's calls (paths, methods, queries, bodies) are accepted by the
 * server's strict schemas. The types are checked by `pnpm typecheck` (see `api-contract.check.ts`).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, openSse, request } from "../src/client/api";
import { apiRoutes } from "../src/shared/api-contract";
import { setupApiHome } from "./api-home";

const home = setupApiHome();

beforeEach(() => {
  home.makeApp([], { demoLogs: async () => [], token: "secret" });
  // The client in Node: its fetch goes to the app in-process, its token to a stand-in storage.
  const storage = new Map<string, string>([["tapedeck.token", "secret"]]);
  vi.stubGlobal("sessionStorage", {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => storage.set(key, value),
  });
  vi.stubGlobal("fetch", (input: string, init?: RequestInit) =>
    home.web.app.request(`http://127.0.0.1${input}`, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers)), host: "127.0.0.1" },
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the API contract", () => {
  it("names exactly the /api routes the server registers", () => {
    const registered = home.web.app.routes
      .filter((route) => route.path.startsWith("/api/") && route.method !== "ALL")
      .map((route) => `${route.method} ${route.path}`);
    expect(new Set(registered)).toEqual(new Set(apiRoutes));
    expect(registered).toHaveLength(apiRoutes.length);
  });

  it("the client's reads are answered by the server", async () => {
    expect((await api.config()).demoAvailable).toBe(true);
    expect((await api.workspaces()).items.map((item) => item.id)).toContain(home.seeded.workspace);
    const page = await api.sessions({ workspace: home.seeded.workspace, status: "completed" });
    expect(page.items.map((item) => item.id)).toContain(home.seeded.english);
    expect(page.items[0]?.shortId.length).toBeGreaterThan(0);
    const view = await api.sessionPage(home.seeded.english, { limit: 2 });
    expect(view.header.sessionId).toBe(home.seeded.english);
    const earlier = await api.sessionPage(home.seeded.english, {
      before: view.firstSeq,
      from: 1,
      ...(view.start === null ? {} : { beforeOffset: view.start }),
    });
    expect(earlier.firstSeq).toBe(1);
    expect(earlier.lastSeq).toBe(view.firstSeq - 1);
    const hits = await api.events({ q: "kettle", prefix: "last", types: "message" });
    expect(Array.isArray(hits.items)).toBe(true);
    const seq = view.events[1]?.seq ?? 1;
    expect((await api.trace(home.seeded.english, seq)).event.seq).toBe(seq);
    expect(
      (await api.lineage(home.seeded.fork)).ancestors.map((item) => item.session.id),
    ).toContain(home.seeded.english);
    expect((await api.runs()).items).toEqual([]);
    expect(await api.sessionRun(home.seeded.english)).toEqual({ run: null });
    expect((await api.importSources()).items.map((item) => item.source)).toContain("codex");
    expect(await request("GET /api/health")).toEqual({ ok: true });
  });

  it("the client's writes are accepted by the server's strict body schemas", async () => {
    expect(await api.setGoal(home.seeded.english, "boil the kettle")).toEqual({
      goal: "boil the kettle",
    });
    const forked = await api.fork(home.seeded.english, 2);
    expect(forked.parent).toEqual({ sessionId: home.seeded.english, seq: 2 });
    expect(await api.loadDemo()).toEqual({ added: [], skipped: [] });
  });

  it("an error answer throws ApiError with the server's code", async () => {
    const cancel = api.cancel("00000000-0000-4000-8000-000000000000");
    await expect(cancel).rejects.toBeInstanceOf(ApiError);
    await expect(cancel).rejects.toMatchObject({ status: 404, code: "NO_SUCH_RUN" });
  });

  it("reads server-sent events with their data parsed", async () => {
    const events = await openSse(new AbortController().signal, "POST /api/agent/stream", {
      body: { input: "hello", sessionId: "00000000-0000-4000-8000-000000000000" },
    });
    const all = [];
    for await (const event of events) all.push(event);
    expect(all).toEqual([
      { event: "error", data: expect.objectContaining({ code: "SESSION_NOT_FOUND" }) },
    ]);
  });
});
