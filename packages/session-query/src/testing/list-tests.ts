import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import type { SessionQueryEngine } from "../query-engine";
import {
  all,
  build,
  conversation,
  expectInvalid,
  moveToNow,
  type SuiteContext,
  workspaceA,
} from "./suite-helpers";

/** Registers the session lists and session search tests. */
export function listTests(context: SuiteContext): void {
  listSessionsTests(context);
  searchSessionsTests(context);
}

/** `listSessions`: what a listed session says (title, counts, status). */
function listSummaryTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("returns an empty page for an empty index", async () => {
    expect(await engine.listSessions(all)).toEqual({ items: [], nextCursor: null });
    expect(await engine.searchSessions(all, { text: "anything" })).toEqual({
      items: [],
      nextCursor: null,
    });
    expect(await engine.searchEvents(all, { text: "anything" })).toEqual({
      items: [],
      nextCursor: null,
    });
  });

  it("summarizes a session: title, counts, status, model, usage", async () => {
    const log = build().system("seed");
    log.turn({ model: "openai:gpt-4.1" }).user("  Fix the\n  flaky   login test  ");
    log.push({
      type: "model/response",
      runId: log.events[1]!.runId,
      requestId: "req-1",
      finishReason: "stop",
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 5 },
    });
    log.assistant("Done.").end();
    await put(log);
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary).toEqual({
      id: log.header.sessionId,
      workspaceId: workspaceA,
      cwd: workspaceA,
      title: "Fix the flaky login test",
      createdAt: log.header.createdAt,
      updatedAt: log.events[log.events.length - 1]!.ts,
      eventCount: 6,
      turnCount: 1,
      status: "completed",
      parent: null,
      forkCount: 0,
      model: "openai:gpt-4.1",
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 5 },
    });
  });

  it("titles a session whose first prompt a slash command expanded to with the command typed", async () => {
    const log = build();
    log.turn();
    log.push({
      type: "message",
      runId: log.events[0]!.runId,
      role: "user",
      content: "Please analyze this codebase and create a CLAUDE.md file.",
      command: "/init",
    });
    log.assistant("Created CLAUDE.md.");
    await put(log);
    const [summary] = (await engine.listSessions(all)).items;
    expect(summary!.title).toBe("/init");
    expect((await engine.searchSessions(all, { text: "init" })).items).toHaveLength(1);
  });

  it("cuts long titles at 120 characters", async () => {
    await put(conversation("word ".repeat(100), "ok"));
    const [summary] = (await engine.listSessions(all)).items;
    expect([...summary!.title!].length).toBe(120);
    expect(summary!.title!.endsWith("…")).toBe(true);
  });

  it("reports active and interrupted sessions", async () => {
    const active = build().turn().user("still running");
    const interrupted = build().turn().user("was stopped").end("interrupted");
    const fresh = build().system("seed only");
    await put(active, interrupted, fresh);
    const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
    expect(byId.get(active.header.sessionId)?.status).toBe("active");
    expect(byId.get(interrupted.header.sessionId)?.status).toBe("interrupted");
    expect(byId.get(fresh.header.sessionId)?.status).toBe("completed");
    expect(byId.get(fresh.header.sessionId)?.title).toBeNull();
    const onlyActive = await engine.listSessions(all, { status: "active" });
    expect(onlyActive.items.map((s) => s.id)).toEqual([active.header.sessionId]);
  });

  it("reports an imported session's open turn as imported, and a Tapedeck run's after it as active", async () => {
    const imported = build().turn({ runId: "import-0123456789abcdef01234567" }).user("asked");
    imported.assistant("answered");
    const continued = build().turn({ runId: "import-76543210fedcba9876543210" }).user("asked");
    continued.end("interrupted").turn().user("continued here");
    await put(imported, continued);
    const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
    expect(byId.get(imported.header.sessionId)?.status).toBe("imported");
    expect(byId.get(continued.header.sessionId)?.status).toBe("active");
    const onlyImported = await engine.listSessions(all, { status: "imported" });
    expect(onlyImported.items.map((s) => s.id)).toEqual([imported.header.sessionId]);
  });
}

/** `listSessions`: order, paging and options. */
function listPagingTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("orders newest first by updatedAt, or by createdAt", async () => {
    const first = conversation("first", "a");
    const second = conversation("second", "b");
    const third = conversation("third", "c");
    await put(first, second, third);
    // The first session gets a new turn, so it was updated last.
    first.turn().user("first again").end();
    moveToNow(first, 3);
    await put(first);
    const updated = await engine.listSessions(all);
    expect(updated.items.map((s) => s.title)).toEqual(["first", "third", "second"]);
    const created = await engine.listSessions(all, { orderBy: "createdAt" });
    expect(created.items.map((s) => s.title)).toEqual(["third", "second", "first"]);
  });

  it("pages with cursors, without repeats, until nextCursor is null", async () => {
    const logs = Array.from({ length: 7 }, (_, index) => conversation(`task ${index}`, "ok"));
    await put(...logs);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<SessionQueryEngine["listSessions"]>> =
        await engine.listSessions(all, cursor === null ? { limit: 3 } : { limit: 3, cursor });
      seen.push(...page.items.map((s) => s.title!));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(logs.map((_, index) => `task ${index}`).reverse());
  });

  it("keeps createdAt paging stable while sessions are added and appended to", async () => {
    const logs = Array.from({ length: 4 }, (_, index) => conversation(`old ${index}`, "ok"));
    await put(...logs);
    const first = await engine.listSessions(all, { orderBy: "createdAt", limit: 2 });
    await put(conversation("newer", "ok"));
    logs[0]!.turn().user("appended").end();
    await put(logs[0]!);
    const second = await engine.listSessions(all, {
      orderBy: "createdAt",
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect([...first.items, ...second.items].map((s) => s.title)).toEqual([
      "old 3",
      "old 2",
      "old 1",
      "old 0",
    ]);
  });

  it("caps limit at 200", async () => {
    await put(...Array.from({ length: 205 }, (_, index) => build().turn().user(`n${index}`)));
    const page = await engine.listSessions(all, { limit: 10_000 });
    expect(page.items).toHaveLength(200);
    expect(page.nextCursor).not.toBeNull();
  });

  it("refuses bad options, naming the field", async () => {
    await expectInvalid(engine.listSessions(all, { limit: 0 }), "options.limit");
    await expectInvalid(engine.listSessions(all, { limit: 1.5 }), "options.limit");
    await expectInvalid(engine.listSessions(all, { orderBy: "title" as never }), "options.orderBy");
    await expectInvalid(engine.listSessions(all, { cursor: "not-a-cursor" }), "cursor");
    await expectInvalid(engine.listSessions(all, { sortBy: "id" } as never), "options");
    await expectInvalid(engine.listSessions({ workspaceIds: [] }), "scope.workspaceIds");
    await expectInvalid(engine.listSessions({ all: false } as never), "scope");
    await expectInvalid(engine.readSession(all, "../../etc/passwd"), "sessionId");
  });

  it("refuses a cursor from another query", async () => {
    await put(conversation("one", "a"), conversation("two", "b"), conversation("three", "c"));
    const page = await engine.listSessions(all, { limit: 1 });
    await expectInvalid(
      engine.listSessions(all, { limit: 1, orderBy: "createdAt", cursor: page.nextCursor! }),
      "cursor",
    );
  });
}

/** Registers the `listSessions` tests. */
function listSessionsTests(context: SuiteContext): void {
  describe("listSessions", () => {
    listSummaryTests(context);
    listPagingTests(context);
  });
}

/** Registers the `searchSessions` tests. */
function searchSessionsTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  describe("searchSessions", () => {
    it("matches words of the first user message and the cwd", async () => {
      const login = conversation("Fix the flaky login test", "ok");
      const docs = build({ cwd: "/home/me/docs-site" })
        .turn()
        .user("Write the release notes")
        .end();
      await put(login, docs, conversation("Unrelated", "ok"));
      const byPrompt = await engine.searchSessions(all, { text: "login FLAKY" });
      expect(byPrompt.items.map((s) => s.id)).toEqual([login.header.sessionId]);
      const byCwd = await engine.searchSessions(all, { text: "docs-site" });
      expect(byCwd.items.map((s) => s.id)).toEqual([docs.header.sessionId]);
      expect((await engine.searchSessions(all, { text: "login notes" })).items).toEqual([]);
    });

    it("filters by status and time", async () => {
      const done = conversation("alpha one", "ok");
      const running = build().turn().user("alpha two");
      await put(done, running);
      const active = await engine.searchSessions(all, { text: "alpha", status: "active" });
      expect(active.items.map((s) => s.id)).toEqual([running.header.sessionId]);
      const later = await engine.searchSessions(all, { since: running.header.createdAt });
      expect(later.items.map((s) => s.id)).toEqual([running.header.sessionId]);
      const earlier = await engine.searchSessions(all, { until: running.header.createdAt });
      expect(earlier.items.map((s) => s.id)).toEqual([done.header.sessionId]);
    });
  });
}
