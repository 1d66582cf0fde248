import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import type { SessionQueryEngine } from "../query-engine";
import { all, build, conversation, expectInvalid, type SuiteContext } from "./suite-helpers";

/** Registers the event search tests. */
export function searchTests(context: SuiteContext): void {
  searchEventsTests(context);
}

/** `searchEvents`: what matches, in which order, with which snippet. */
function searchMatchTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("finds message content, tool names and arguments, outputs and compaction summaries", async () => {
    const log = build().turn().user("Please check the deployment");
    log.call("read_file", { path: "src/kubernetes.yaml" }).output("replicas: 3 zeppelin");
    log.compact("Summary: the user asked about quasar deployments", [2]).end();
    await put(log);
    const find = async (text: string) =>
      (await engine.searchEvents(all, { text })).items.map((hit) => hit.event.seq);
    expect(await find("deployment")).toEqual([2]);
    expect(await find("read_file")).toEqual([3]);
    expect(await find("kubernetes")).toEqual([3]);
    expect(await find("zeppelin")).toEqual([4]);
    expect(await find("quasar")).toEqual([5]);
  });

  it("returns newest first by default, oldest first on request", async () => {
    const older = conversation("banana bread", "banana done");
    const newer = conversation("banana split", "ok");
    await put(older, newer);
    const newest = await engine.searchEvents(all, { text: "banana" });
    expect(newest.items.map((hit) => [hit.sessionId, hit.event.seq])).toEqual([
      [newer.header.sessionId, 3],
      [older.header.sessionId, 4],
      [older.header.sessionId, 3],
    ]);
    const oldest = await engine.searchEvents(all, { text: "banana", order: "oldest" });
    expect(oldest.items.map((hit) => hit.event.seq)).toEqual([3, 4, 3]);
    expect(oldest.items[0]!.sessionId).toBe(older.header.sessionId);
  });

  it("ranks by relevance on request", async () => {
    const log = build().turn();
    log.user("a long message that mentions migration once among many other unrelated words here");
    log.assistant("migration migration migration");
    log.user("migration plan");
    log.end();
    await put(log);
    const page = await engine.searchEvents(all, { text: "migration", order: "relevance" });
    expect(page.items[0]!.event.seq).toBe(3);
    expect(page.items[2]!.event.seq).toBe(2);
    for (const hit of page.items) expect(typeof hit.score).toBe("number");
    expect(page.items[0]!.score!).toBeGreaterThan(page.items[2]!.score!);
  });

  it("requires every word, in any order, whole words, ignoring case and accents", async () => {
    const log = build().turn();
    log.user("The Café serves crème brûlée");
    log.assistant("database connection pooling");
    log.assistant("databases are plural");
    log.end();
    await put(log);
    const seqs = async (text: string) =>
      (await engine.searchEvents(all, { text, order: "oldest" })).items.map((h) => h.event.seq);
    expect(await seqs("cafe CREME")).toEqual([2]);
    expect(await seqs("brulee café")).toEqual([2]);
    expect(await seqs("pooling database")).toEqual([3]);
    expect(await seqs("database")).toEqual([3]);
    expect(await seqs("database missing")).toEqual([]);
  });

  it("highlights matches in snippets, with custom markers", async () => {
    const log = build().turn();
    log.user(`${"filler ".repeat(40)}the needle is here ${"tail ".repeat(40)}`).end();
    await put(log);
    const [hit] = (await engine.searchEvents(all, { text: "needle" })).items;
    expect(hit!.snippet).toContain("«needle»");
    expect(hit!.snippet.startsWith("…")).toBe(true);
    expect(hit!.snippet.endsWith("…")).toBe(true);
    expect(hit!.snippet.length).toBeLessThan(200);
    const [marked] = (
      await engine.searchEvents(all, {
        text: "needle",
        highlight: { open: "<b>", close: "</b>" },
      })
    ).items;
    expect(marked!.snippet).toContain("<b>needle</b>");
    expect(hit!.session.id).toBe(log.header.sessionId);
  });
}

/** `searchEvents`: the filters (session, type, role, tool, call, time, currentOnly). */
function searchFilterTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("filters by session, type, role, tool name, callId and time", async () => {
    const log = build().turn().user("grep for widgets");
    log.call("shell", { command: "grep widgets" }, "call-shell");
    log.output("widgets found: 3");
    log.call("read_file", { path: "widgets.ts" }, "call-read");
    log.output("export const widgets = []");
    log.assistant("There are widgets.").end();
    const other = conversation("widgets elsewhere", "ok");
    await put(log, other);
    const seqs = async (query: Parameters<SessionQueryEngine["searchEvents"]>[1]) =>
      (await engine.searchEvents(all, { ...query, order: "oldest" })).items.map((h) => [
        h.sessionId === log.header.sessionId ? "log" : "other",
        h.event.seq,
      ]);
    expect(await seqs({ text: "widgets", sessionId: log.header.sessionId })).toEqual([
      ["log", 2],
      ["log", 3],
      ["log", 4],
      ["log", 5],
      ["log", 6],
      ["log", 7],
    ]);
    expect(await seqs({ text: "widgets", types: ["function_call"] })).toEqual([
      ["log", 3],
      ["log", 5],
    ]);
    expect(await seqs({ text: "widgets", roles: ["user"] })).toEqual([
      ["log", 2],
      ["other", 3],
    ]);
    expect(await seqs({ toolName: "shell" })).toEqual([
      ["log", 3],
      ["log", 4],
    ]);
    expect(await seqs({ callId: "call-read" })).toEqual([
      ["log", 5],
      ["log", 6],
    ]);
    const fourth = log.events[3]!.ts;
    const sixth = log.events[5]!.ts;
    expect(await seqs({ sessionId: log.header.sessionId, since: fourth, until: sixth })).toEqual([
      ["log", 4],
      ["log", 5],
    ]);
    expect(await seqs({ types: ["turn/end"], sessionId: log.header.sessionId })).toEqual([
      ["log", 8],
    ]);
  });

  it("with currentOnly, leaves out events a compaction replaced", async () => {
    const log = build().turn().user("talk about pelicans");
    log.assistant("pelicans are birds");
    log.compact("we discussed pelicans", [2, 3]).end();
    await put(log);
    const everything = await engine.searchEvents(all, { text: "pelicans", order: "oldest" });
    expect(everything.items.map((h) => h.event.seq)).toEqual([2, 3, 4]);
    const current = await engine.searchEvents(all, { text: "pelicans", currentOnly: true });
    expect(current.items.map((h) => h.event.seq)).toEqual([4]);
    const noText = await engine.searchEvents(all, { currentOnly: true, order: "oldest" });
    expect(noText.items.map((h) => h.event.seq)).toEqual([4]);
  });
}

/** `searchEvents`: time bounds and paging, also while events are appended. */
function searchPagingTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("bounds a text search by time and pages it in either order; relevance ties go newest first", async () => {
    const early = conversation("quasar early", "ok");
    const log = build().turn();
    for (let index = 0; index < 6; index += 1) log.assistant(`quasar ${index}`);
    log.end();
    const late = conversation("quasar late", "ok");
    await put(early, log, late);
    const label = (sessionId: string) =>
      sessionId === early.header.sessionId
        ? "early"
        : sessionId === late.header.sessionId
          ? "late"
          : "log";
    const search = async (query: Omit<Parameters<SessionQueryEngine["searchEvents"]>[1], "text">) =>
      (await engine.searchEvents(all, { text: "quasar", ...query })).items.map(
        (hit) => `${label(hit.sessionId)} ${hit.event.seq}`,
      );
    const since = log.events[2]!.ts; // seq 3: since is inclusive
    const until = log.events[5]!.ts; // seq 6: until is exclusive
    expect(await search({ since, until })).toEqual(["log 5", "log 4", "log 3"]);
    expect(await search({ since, until, order: "oldest" })).toEqual(["log 3", "log 4", "log 5"]);
    expect(await search({ since })).toEqual([
      "late 3",
      "log 7",
      "log 6",
      "log 5",
      "log 4",
      "log 3",
    ]);
    expect(await search({ until, order: "oldest" })).toEqual([
      "early 3",
      "log 2",
      "log 3",
      "log 4",
      "log 5",
    ]);
    const newest = await search({});
    expect(newest).toHaveLength(8);
    // Every hit has two words: equal scores, so relevance orders them newest first.
    expect(await search({ order: "relevance" })).toEqual(newest);
    for (const order of ["oldest", "newest"] as const) {
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await engine.searchEvents(all, {
          text: "quasar",
          order,
          limit: 3,
          since,
          ...(cursor === null ? {} : { cursor }),
        });
        pages.push(...page.items.map((hit) => `${label(hit.sessionId)} ${hit.event.seq}`));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(pages).toEqual(
        order === "oldest" ? (await search({ since })).reverse() : await search({ since }),
      );
    }
  });

  it("pages newest-first without repeats or gaps while events are appended", async () => {
    const log = build().turn();
    for (let index = 0; index < 6; index += 1) log.assistant(`comet ${index}`);
    await put(log);
    const first = await engine.searchEvents(all, { text: "comet", limit: 4 });
    log.assistant("comet new").end();
    await put(log, conversation("comet elsewhere", "ok"));
    const second = await engine.searchEvents(all, {
      text: "comet",
      limit: 4,
      cursor: first.nextCursor!,
    });
    expect(second.nextCursor).toBeNull();
    expect([...first.items, ...second.items].map((h) => h.event.seq)).toEqual([7, 6, 5, 4, 3, 2]);
    const fresh = await engine.searchEvents(all, { text: "comet", limit: 1 });
    expect(fresh.items[0]!.sessionId).not.toBe(log.header.sessionId);
  });

  it("pages by relevance without repeats while events are appended", async () => {
    const log = build().turn();
    for (let index = 0; index < 5; index += 1) log.assistant(`nebula ${"nebula ".repeat(index)}`);
    await put(log);
    const first = await engine.searchEvents(all, {
      text: "nebula",
      order: "relevance",
      limit: 3,
    });
    log.assistant("nebula nebula nebula nebula nebula nebula nebula").end();
    await put(log);
    const second = await engine.searchEvents(all, {
      text: "nebula",
      order: "relevance",
      limit: 3,
      cursor: first.nextCursor!,
    });
    const seqs = [...first.items, ...second.items].map((h) => h.event.seq);
    expect(seqs.sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6]);
  });
}

/** `searchEvents`: hostile, non-Latin and invalid queries. */
function searchInputTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("searches hostile query strings as plain text", async () => {
    const log = build().turn();
    log.user("we need a multi-agent setup");
    log.assistant("don't worry about c++ templates (yet)");
    log.assistant("either this or that");
    log.assistant('she said "hello" NEAR(door) AND NOT * ^ done');
    log.end();
    await put(log);
    const seqs = async (text: string) =>
      (await engine.searchEvents(all, { text, order: "oldest" })).items.map((h) => h.event.seq);
    expect(await seqs("multi-agent")).toEqual([2]);
    expect(await seqs("don't")).toEqual([3]);
    expect(await seqs("c++")).toEqual([3]);
    expect(await seqs("OR")).toEqual([4]);
    expect(await seqs('"hello')).toEqual([5]);
    expect(await seqs("NEAR(door")).toEqual([5]);
    expect(await seqs("NOT")).toEqual([5]);
    for (const text of [
      "(",
      '"',
      ")",
      "*",
      "^",
      ":",
      "-",
      "AND",
      '"" OR ""',
      "\\",
      "'",
      "{}",
      "NEAR(",
      "col:term",
      "a*b",
      "…",
    ]) {
      const page = await engine.searchEvents(all, { text });
      expect(Array.isArray(page.items), text).toBe(true);
    }
    expect(await seqs("(")).toEqual([]);
    expect(await seqs("   ")).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("finds Chinese text as a substring, with clean snippets", async () => {
    const log = build().turn();
    log.user("我们需要修复数据库连接的问题");
    log.assistant("数据已经备份");
    log.assistant("用sql数据库查询");
    log.assistant("图书馆");
    log.end();
    await put(log);
    const seqs = async (text: string) =>
      (await engine.searchEvents(all, { text, order: "oldest" })).items.map((h) => h.event.seq);
    expect(await seqs("数据")).toEqual([2, 3, 4]);
    expect(await seqs("数据库")).toEqual([2, 4]);
    expect(await seqs("据库连")).toEqual([2]);
    expect(await seqs("库数")).toEqual([]);
    expect(await seqs("sql数据库")).toEqual([4]);
    expect(await seqs("修复 连接")).toEqual([2]);
    const [hit] = (await engine.searchEvents(all, { text: "数据库连接" })).items;
    expect(hit!.snippet).toBe("我们需要修复«数据库连接»的问题");
  });

  it("refuses bad queries, naming the field", async () => {
    await expectInvalid(engine.searchEvents(all, { limit: -1 }), "query.limit");
    await expectInvalid(engine.searchEvents(all, { since: "yesterday" }), "query.since");
    await expectInvalid(engine.searchEvents(all, { types: ["bogus"] as never }), "query.types.0");
    await expectInvalid(engine.searchEvents(all, { roles: ["robot"] as never }), "query.roles.0");
    await expectInvalid(engine.searchEvents(all, { sessionId: "abc" }), "query.sessionId");
    await expectInvalid(engine.searchEvents(all, { order: "random" as never }), "query.order");
    await expectInvalid(engine.searchEvents(all, { workspaceIds: ["x"] } as never), "query");
  });
}

/** Registers the `searchEvents` tests. */
function searchEventsTests(context: SuiteContext): void {
  describe("searchEvents", () => {
    searchMatchTests(context);
    searchFilterTests(context);
    searchPagingTests(context);
    searchInputTests(context);
  });
}
