/**
 * The conformance suite every {@link SessionQueryEngine} backend runs: the same behaviours, the
 * same assertions, whatever stores the index.
 */
import {
  EventLogCorruptError,
  replayEvents,
  type SessionEvent,
  type SessionHeader,
  SessionNotFoundError,
  uuidv7,
} from "@tapedeck/session";
import { type EventLogBuilder, eventLogBuilder } from "@tapedeck/session/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventNotFoundError, InvalidQueryError } from "../errors";
import { exportSession } from "../export";
import type { QueryScope, SessionQueryEngine } from "../query-engine";
import { createSessionQueryTool } from "../tool";

/** A backend under test, with a way to put logs where it reads them. */
export interface QueryEngineHarness {
  engine: SessionQueryEngine;
  /**
   * Makes the engine see this log (header and own events), as if the file now held exactly it.
   * Called again for the same session with more events, it behaves like an append.
   */
  write(header: SessionHeader, events: readonly SessionEvent[]): Promise<void>;
  /** The session's log disappears (as when moved to the trash). */
  remove(sessionId: string): Promise<void>;
  /** Releases resources (files, handles). */
  close(): Promise<void>;
}

const all: QueryScope = { all: true };
const workspaceA = "/work/alpha";
const workspaceB = "/work/beta";
const scopeA: QueryScope = { workspaceIds: [workspaceA] };
const scopeB: QueryScope = { workspaceIds: [workspaceB] };

let clock = Date.parse("2026-03-01T08:00:00.000Z");
/** Each log starts a minute after the previous one, so ordering never ties. */
function nextStart(): Date {
  clock += 60_000;
  return new Date(clock);
}

function build(
  options: { workspaceId?: string; parent?: { sessionId: string; seq: number }; cwd?: string } = {},
): EventLogBuilder {
  const workspaceId = options.workspaceId ?? workspaceA;
  return eventLogBuilder({
    sessionId: uuidv7(),
    workspaceId,
    cwd: options.cwd ?? workspaceId,
    start: nextStart(),
    ...(options.parent === undefined ? {} : { parent: options.parent }),
  });
}

/** Moves the last `count` events of a builder to "now" on the suite's clock (later than any log so far). */
function moveToNow(builder: EventLogBuilder, count: number): void {
  const start = nextStart().getTime();
  builder.events.slice(-count).forEach((event, index) => {
    event.ts = new Date(start + index).toISOString();
  });
}

/** A finished one-turn conversation. */
function conversation(prompt: string, answer: string, workspaceId = workspaceA): EventLogBuilder {
  return build({ workspaceId })
    .system("You are helpful.")
    .turn()
    .user(prompt)
    .assistant(answer)
    .end();
}

async function expectError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

async function expectInvalid(promise: Promise<unknown>, field: string): Promise<void> {
  const error = await expectError(promise);
  expect(InvalidQueryError.isInstance(error), String(error)).toBe(true);
  expect((error as InvalidQueryError).field).toBe(field);
}

/**
 * Registers the conformance tests for one backend. `create` is called before each test and must
 * return an empty engine; `close` is called after it.
 */
export function describeQueryEngine(name: string, create: () => Promise<QueryEngineHarness>): void {
  describe(`SessionQueryEngine conformance: ${name}`, () => {
    let harness: QueryEngineHarness;
    let engine: SessionQueryEngine;
    const put = async (...builders: EventLogBuilder[]) => {
      for (const builder of builders) await harness.write(builder.header, builder.events);
    };

    beforeEach(async () => {
      harness = await create();
      engine = harness.engine;
    });
    afterEach(async () => {
      await harness.close();
    });

    describe("listSessions", () => {
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
        await expectInvalid(
          engine.listSessions(all, { orderBy: "title" as never }),
          "options.orderBy",
        );
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

    describe("searchEvents", () => {
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
        log.user(
          "a long message that mentions migration once among many other unrelated words here",
        );
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
        expect(
          await seqs({ sessionId: log.header.sessionId, since: fourth, until: sixth }),
        ).toEqual([
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
        expect([...first.items, ...second.items].map((h) => h.event.seq)).toEqual([
          7, 6, 5, 4, 3, 2,
        ]);
        const fresh = await engine.searchEvents(all, { text: "comet", limit: 1 });
        expect(fresh.items[0]!.sessionId).not.toBe(log.header.sessionId);
      });

      it("pages by relevance without repeats while events are appended", async () => {
        const log = build().turn();
        for (let index = 0; index < 5; index += 1)
          log.assistant(`nebula ${"nebula ".repeat(index)}`);
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
        await expectInvalid(
          engine.searchEvents(all, { types: ["bogus"] as never }),
          "query.types.0",
        );
        await expectInvalid(
          engine.searchEvents(all, { roles: ["robot"] as never }),
          "query.roles.0",
        );
        await expectInvalid(engine.searchEvents(all, { sessionId: "abc" }), "query.sessionId");
        await expectInvalid(engine.searchEvents(all, { order: "random" as never }), "query.order");
        await expectInvalid(engine.searchEvents(all, { workspaceIds: ["x"] } as never), "query");
      });
    });

    describe("scope", () => {
      it("isolates workspaces in lists, searches and reads", async () => {
        const alpha = conversation("secret plans alpha", "ok", workspaceA);
        const beta = conversation("secret plans beta", "ok", workspaceB);
        await put(alpha, beta);
        expect((await engine.listSessions(scopeA)).items.map((s) => s.id)).toEqual([
          alpha.header.sessionId,
        ]);
        expect(
          (await engine.searchSessions(scopeB, { text: "secret" })).items.map((s) => s.id),
        ).toEqual([beta.header.sessionId]);
        const hits = await engine.searchEvents(scopeA, { text: "secret" });
        expect(hits.items.map((h) => h.sessionId)).toEqual([alpha.header.sessionId]);
        const sneaky = await engine.searchEvents(scopeA, {
          text: "secret",
          sessionId: beta.header.sessionId,
        });
        expect(sneaky.items).toEqual([]);
        const both = await engine.listSessions({ workspaceIds: [workspaceA, workspaceB] });
        expect(both.items).toHaveLength(2);
        const nowhere = { workspaceIds: ["/no/such/workspace"] };
        expect((await engine.listSessions(nowhere)).items).toEqual([]);
        expect((await engine.searchEvents(nowhere, { text: "secret" })).items).toEqual([]);
        expect((await engine.searchEvents(nowhere, { types: ["message"] })).items).toEqual([]);
      });

      it("makes an out-of-scope session indistinguishable from a missing one", async () => {
        const beta = conversation("hidden", "ok", workspaceB);
        await put(beta);
        const missing = uuidv7();
        for (const id of [beta.header.sessionId, missing]) {
          for (const call of [
            () => engine.readSession(scopeA, id),
            () => engine.traceEvent(scopeA, id, 1),
            () => engine.traceLineage(scopeA, id),
            () => exportSession(engine, scopeA, id),
          ]) {
            const error = await expectError(call());
            expect(SessionNotFoundError.isInstance(error)).toBe(true);
            expect((error as Error).message).toBe(`Session ${id} was not found.`);
          }
        }
        expect((await engine.readSession(scopeB, beta.header.sessionId)).lastSeq).toBe(5);
      });

      it("forgets a session whose log is gone", async () => {
        const log = conversation("to be trashed", "ok");
        await put(log);
        await harness.remove(log.header.sessionId);
        expect((await engine.listSessions(all)).items).toEqual([]);
        expect((await engine.searchEvents(all, { text: "trashed" })).items).toEqual([]);
        const error = await expectError(engine.readSession(all, log.header.sessionId));
        expect(SessionNotFoundError.isInstance(error)).toBe(true);
      });
    });

    describe("readSession and export", () => {
      it("returns the replay-validated session", async () => {
        const log = build().turn().user("hello").call("ls", {}).output("a b").end();
        await put(log);
        const session = await engine.readSession(all, log.header.sessionId);
        expect(session.events).toEqual(log.events);
        expect(session.turnCount).toBe(1);
        expect(session.currentSeqs).toEqual([2, 3, 4]);
      });

      it("exports JSONL that replays to the same session", async () => {
        const log = build().turn().user("export me").end();
        await put(log);
        expect(await exportSession(engine, all, log.header.sessionId)).toBe(log.jsonl());
      });
    });

    describe("forks", () => {
      async function family() {
        const parent = build().system("seed").turn().user("parent question about otters");
        parent.assistant("otters answer").end();
        const child = build({ parent: { sessionId: parent.header.sessionId, seq: 5 } });
        child.turn().user("child follow-up about beavers").end();
        const grandchild = build({ parent: { sessionId: child.header.sessionId, seq: 8 } });
        grandchild.turn().user("grandchild idea").end();
        const sibling = build({ parent: { sessionId: parent.header.sessionId, seq: 1 } });
        sibling.turn().user("sibling path").end();
        await put(parent, child, grandchild, sibling);
        return { parent, child, grandchild, sibling };
      }

      it("summarizes forks with parent and forkCount", async () => {
        const { parent, child } = await family();
        const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
        expect(byId.get(parent.header.sessionId)?.forkCount).toBe(2);
        expect(byId.get(child.header.sessionId)?.parent).toEqual({
          sessionId: parent.header.sessionId,
          seq: 5,
        });
        expect(byId.get(child.header.sessionId)?.eventCount).toBe(3);
        expect(byId.get(child.header.sessionId)?.title).toBe("child follow-up about beavers");
      });

      it("reads a fork with its parent prefix", async () => {
        const { parent, child } = await family();
        const session = await engine.readSession(all, child.header.sessionId);
        expect(session.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        expect(session.events.slice(0, 5)).toEqual(parent.events);
        expect(session.header.parent?.sessionId).toBe(parent.header.sessionId);
      });

      it("searches a parent prefix as part of the parent only", async () => {
        const { parent } = await family();
        const hits = await engine.searchEvents(all, { text: "otters" });
        expect(hits.items.map((h) => h.sessionId)).toEqual([
          parent.header.sessionId,
          parent.header.sessionId,
        ]);
      });

      it("traces lineage up and down", async () => {
        const { parent, child, grandchild, sibling } = await family();
        const lineage = await engine.traceLineage(all, child.header.sessionId);
        expect(lineage.session.id).toBe(child.header.sessionId);
        expect(lineage.ancestors.map((a) => [a.session.id, a.forkSeq])).toEqual([
          [parent.header.sessionId, 5],
        ]);
        expect(lineage.descendants.map((d) => [d.session.id, d.forkSeq, d.children])).toEqual([
          [grandchild.header.sessionId, 8, []],
        ]);
        const root = await engine.traceLineage(all, parent.header.sessionId);
        expect(root.ancestors).toEqual([]);
        expect(root.descendants.map((d) => d.session.id)).toEqual([
          child.header.sessionId,
          sibling.header.sessionId,
        ]);
        expect(root.descendants[0]!.children.map((d) => d.session.id)).toEqual([
          grandchild.header.sessionId,
        ]);
        const leaf = await engine.traceLineage(all, grandchild.header.sessionId);
        expect(leaf.ancestors.map((a) => [a.session.id, a.forkSeq])).toEqual([
          [child.header.sessionId, 8],
          [parent.header.sessionId, 5],
        ]);
      });

      it("exports a fork self-contained, parent kept in the header", async () => {
        const { child } = await family();
        const text = await exportSession(engine, all, child.header.sessionId);
        const lines = text
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line));
        const [header, ...events] = lines as [SessionHeader, ...SessionEvent[]];
        expect(header.parent).toEqual(child.header.parent);
        expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        const replayed = replayEvents(header, events.slice(5), {
          parentEvents: events.slice(0, 5),
        });
        expect(replayed.lastSeq).toBe(8);
      });
    });

    describe("traceEvent", () => {
      it("follows replacements to the visible version and lists citers by depth", async () => {
        const log = build().turn().user("look at the logs");
        log.call("read_file", { path: "app.log" }, "call-1").output("error at line 3");
        log.push({
          type: "x-note",
          runId: log.events[0]!.runId,
          text: "derived from the output",
          sourceEventSeqs: [4],
        });
        log.compact("first summary", [2, 3, 4]);
        log.compact("second summary", [6]).end();
        await put(log);
        const trace = await engine.traceEvent(all, log.header.sessionId, 3);
        expect(trace.event).toEqual(log.events[2]);
        expect(trace.visible).toBe(false);
        expect(trace.replacementChain.map((step) => step.seq)).toEqual([3, 6, 7]);
        expect(trace.current?.seq).toBe(7);
        expect(trace.citedBy.map((c) => [c.seq, c.depth])).toEqual([
          [4, 1],
          [5, 2],
        ]);
        const output = await engine.traceEvent(all, log.header.sessionId, 4);
        expect(output.sources.map((s) => s.seq)).toEqual([3]);
        const turnStart = await engine.traceEvent(all, log.header.sessionId, 1);
        expect(turnStart.current).toBeNull();
        expect(turnStart.replacementChain.map((step) => step.seq)).toEqual([1]);
      });

      it("traces into a fork's parent prefix", async () => {
        const parent = build().turn().user("original").end();
        const child = build({ parent: { sessionId: parent.header.sessionId, seq: 3 } });
        child.turn().compact("shortened", [2]).end();
        await put(parent, child);
        const trace = await engine.traceEvent(all, child.header.sessionId, 2);
        expect(trace.replacementChain.map((step) => step.seq)).toEqual([2, 5]);
        const inParent = await engine.traceEvent(all, parent.header.sessionId, 2);
        expect(inParent.visible).toBe(true);
      });

      it("throws EventNotFoundError for a seq the session does not have", async () => {
        const log = conversation("short", "ok");
        await put(log);
        const error = await expectError(engine.traceEvent(all, log.header.sessionId, 99));
        expect(EventNotFoundError.isInstance(error)).toBe(true);
        await expectInvalid(engine.traceEvent(all, log.header.sessionId, 0), "seq");
      });
    });

    describe("damaged logs", () => {
      it("refuses to read or export a log with a seq gap, but keeps searching the others", async () => {
        const good = conversation("healthy walrus", "ok");
        const bad = conversation("broken walrus", "ok");
        const events = bad.events.filter((event) => event.seq !== 3);
        await harness.write(bad.header, events);
        await put(good);
        const byId = new Map((await engine.listSessions(all)).items.map((s) => [s.id, s]));
        expect(byId.get(bad.header.sessionId)?.status).toBe("damaged");
        expect(byId.get(bad.header.sessionId)?.damage?.code).toBe("SEQ_GAP");
        expect(byId.get(good.header.sessionId)?.status).toBe("completed");
        const error = await expectError(engine.readSession(all, bad.header.sessionId));
        expect(EventLogCorruptError.isInstance(error)).toBe(true);
        expect((error as EventLogCorruptError).code).toBe("SEQ_GAP");
        const exported = await expectError(exportSession(engine, all, bad.header.sessionId));
        expect(EventLogCorruptError.isInstance(exported)).toBe(true);
        const hits = await engine.searchEvents(all, { text: "healthy walrus" });
        expect(hits.items.map((h) => h.sessionId)).toEqual([good.header.sessionId]);
        const damaged = await engine.listSessions(all, { status: "damaged" });
        expect(damaged.items.map((s) => s.id)).toEqual([bad.header.sessionId]);
      });

      it("finds a broken invariant in a log indexed from its first event", async () => {
        const log = build().turn().user("orphan walrus");
        log.push({
          type: "function_call_output",
          runId: log.events[0]!.runId,
          callId: "never-called",
          output: "?",
          isError: false,
          sourceEventSeqs: [1],
        });
        log.end();
        await put(log);
        const [summary] = (await engine.listSessions(all)).items;
        expect(summary?.status).toBe("damaged");
        expect(summary?.damage?.code).toBe("ORPHAN_OUTPUT");
        const error = await expectError(engine.readSession(all, log.header.sessionId));
        expect((error as EventLogCorruptError).code).toBe("ORPHAN_OUTPUT");
        const trace = await expectError(engine.traceEvent(all, log.header.sessionId, 1));
        expect(EventLogCorruptError.isInstance(trace)).toBe(true);
      });

      it("marks a session damaged once a read finds a broken invariant in appended events", async () => {
        const log = build().turn().user("later walrus").end();
        await put(log);
        log.push({ type: "turn/end", runId: log.events[0]!.runId, status: "completed" });
        await put(log);
        const error = await expectError(engine.readSession(all, log.header.sessionId));
        expect((error as EventLogCorruptError).code).toBe("TURN_NESTING");
        const [summary] = (await engine.listSessions(all)).items;
        expect(summary?.status).toBe("damaged");
        expect(summary?.damage?.code).toBe("TURN_NESTING");
        const hits = await engine.searchEvents(all, { text: "walrus" });
        expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
      });
    });

    describe("copies", () => {
      it("hands out copies: mutating results changes nothing inside", async () => {
        const log = build().turn().user("immutable yak").call("ls", { dir: "." }).output("x").end();
        await put(log);
        const [summary] = (await engine.listSessions(all)).items;
        summary!.title = "changed";
        summary!.usage.inputTokens = 999;
        const [hit] = (await engine.searchEvents(all, { text: "yak" })).items;
        (hit!.event as { content: string }).content = "changed";
        hit!.session.title = "changed";
        const session = await engine.readSession(all, log.header.sessionId);
        (session.events[1] as { content: string }).content = "changed";
        const trace = await engine.traceEvent(all, log.header.sessionId, 2);
        (trace.event as { content: string }).content = "changed";
        const lineage = await engine.traceLineage(all, log.header.sessionId);
        lineage.session.title = "changed";

        const [again] = (await engine.listSessions(all)).items;
        expect(again!.title).toBe("immutable yak");
        expect(again!.usage.inputTokens).toBe(0);
        const [hitAgain] = (await engine.searchEvents(all, { text: "yak" })).items;
        expect((hitAgain!.event as { content: string }).content).toBe("immutable yak");
        const reread = await engine.readSession(all, log.header.sessionId);
        expect(reread.events).toEqual(log.events);
      });
    });

    describe("session_query tool", () => {
      it("searches, lists, reads and traces within its workspace only", async () => {
        const alpha = build({ workspaceId: workspaceA }).turn().user("tool visible marmot");
        alpha.call("shell", { command: "ls" }).output("marmot.txt").end();
        const beta = conversation("tool hidden marmot", "ok", workspaceB);
        await put(alpha, beta);
        const tool = createSessionQueryTool(engine, { workspaceId: workspaceA });
        expect(tool.name).toBe("session_query");
        expect(tool.parameters.type).toBe("object");
        const search = await tool.execute({ action: "search_events", text: "marmot" });
        expect(search).toContain(alpha.header.sessionId);
        expect(search).not.toContain(beta.header.sessionId);
        const list = await tool.execute({ action: "list_sessions" });
        expect(list).toContain("tool visible marmot");
        expect(list).not.toContain("hidden");
        const read = await tool.execute({
          action: "read_session",
          sessionId: alpha.header.sessionId,
        });
        expect(read).toContain("#2 message/user: tool visible marmot");
        const trace = await tool.execute({
          action: "trace_event",
          sessionId: alpha.header.sessionId,
          seq: 3,
        });
        expect(trace).toContain("cited by: #4 function_call_output (depth 1)");
        const lineage = await tool.execute({
          action: "trace_lineage",
          sessionId: alpha.header.sessionId,
        });
        expect(lineage).toContain("forks: none");
      });

      it("cannot be widened by its arguments", async () => {
        const beta = conversation("tool hidden marmot", "ok", workspaceB);
        await put(beta);
        const tool = createSessionQueryTool(engine, { workspaceId: workspaceA });
        const hidden = beta.header.sessionId;
        const missing = uuidv7();
        const readHidden = await tool.execute({ action: "read_session", sessionId: hidden });
        const readMissing = await tool.execute({ action: "read_session", sessionId: missing });
        expect(readHidden).toBe(`Error [SESSION_NOT_FOUND]: Session ${hidden} was not found.`);
        expect(readMissing).toBe(`Error [SESSION_NOT_FOUND]: Session ${missing} was not found.`);
        expect(
          await tool.execute({ action: "search_events", text: "marmot", sessionId: hidden }),
        ).toBe("No matching events.");
        for (const widen of [
          { scope: { all: true } },
          { all: true },
          { workspaceIds: [workspaceB] },
          { workspaceId: workspaceB },
        ]) {
          const answer = await tool.execute({ action: "search_events", text: "marmot", ...widen });
          expect(answer).toMatch(/^Error \[INVALID_QUERY\]/);
        }
        expect(await tool.execute({ action: "list_sessions" })).toBe("No sessions.");
        expect(await tool.execute({ action: "drop_tables" })).toMatch(
          /^Error \[INVALID_QUERY\]: action/,
        );
        expect(await tool.execute("not an object")).toMatch(/^Error \[INVALID_QUERY\]/);
        expect(await tool.execute({ action: "read_session" })).toMatch(/needs `sessionId`/);
        expect(
          await tool.execute({ action: "search_events", types: ["bogus"], text: "marmot" }),
        ).toMatch(/^Error \[INVALID_QUERY\]: Invalid query: query\.types\.0/);
      });
    });
  });
}
