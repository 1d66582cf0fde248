/**
 * The client and the server agree at run time too: the client's calls (`hc<ApiRoutes>`: paths,
 * methods, queries, bodies) are answered by the app that serves the page and accepted by the
 * server's strict schemas. The types are checked by `pnpm typecheck` (see `api-client.check.ts`).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, apiClient } from "../src/client/api";
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

describe("the typed API client", () => {
  it("every /api route the client can call is registered on the app, in front of the 404", () => {
    // The typed routes are mounted on the app (after its guards), not on a second Hono.
    const registered = home.web.app.routes
      .filter((route) => route.path.startsWith("/api/") && route.method !== "ALL")
      .map((route) => `${route.method} ${route.path}`);
    expect(registered).toContain("GET /api/sessions/:id/page");
    expect(registered).toContain("POST /api/agent/stream");
    // Guards (`ALL /api/*` middleware) before every route, the 404 (`ALL /api/*`) after them all.
    const routes = home.web.app.routes;
    const isRoute = (route: { path: string; method: string }) =>
      route.path.startsWith("/api/") && route.method !== "ALL";
    const catchAll = routes.flatMap((route, at) =>
      route.path === "/api/*" && route.method === "ALL" ? [at] : [],
    );
    const notFound = catchAll.at(-1) ?? -1;
    expect(catchAll.slice(0, -1).every((at) => at < routes.findIndex(isRoute))).toBe(true);
    expect(routes.findLastIndex(isRoute)).toBeLessThan(notFound);
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
    expect(await (await apiClient.api.health.$get()).json()).toEqual({ ok: true });
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
    const events = await api.startRun(
      { input: "hello", sessionId: "00000000-0000-4000-8000-000000000000" },
      new AbortController().signal,
    );
    const all = [];
    for await (const event of events) all.push(event);
    expect(all).toEqual([
      { event: "error", data: expect.objectContaining({ code: "SESSION_NOT_FOUND" }) },
    ]);
  });
});
