import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import type { EventSearchQuery, SessionQueryEngine } from "../query-engine";
import { all, build, conversation, expectInvalid, type SuiteContext } from "./suite-helpers";

/** Registers the tests of `prefix: "last"` (search as you type). */
export function prefixTests(context: SuiteContext): void {
  prefixSearchEventsTests(context);
  prefixSearchSessionsTests(context);
}

/** Registers the `searchEvents with prefix: "last"` tests. */
function prefixSearchEventsTests(context: SuiteContext): void {
  describe('searchEvents with prefix: "last"', () => {
    prefixMatchTests(context);
    prefixPagingTests(context);
  });
}

/** `searchEvents` with a prefix: what matches and how it is highlighted. */
function prefixMatchTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  const { seqs, seed } = prefixHelpers(context);
  beforeEach(() => {
    engine = context.engine;
  });

  it("matches the last word as a prefix, whole words before it", async () => {
    await seed();
    expect(await seqs("compa")).toEqual([2, 3, 4]);
    expect(await seqs("COMPACTION")).toEqual([2, 4]);
    expect(await seqs("compact")).toEqual([2, 3, 4]);
    expect(await seqs("context compa")).toEqual([2]);
    expect(await seqs("compa context")).toEqual([]); // only the last word is a prefix
    expect(await seqs("multi-ag")).toEqual([3]);
    expect(await seqs("caf")).toEqual([3]); // accents folded, as for whole words
    expect(await seqs("cre bru")).toEqual([]);
    expect(await seqs("crème bru")).toEqual([4]);
    // The same texts without prefix matching find whole words only.
    const whole = async (text: string) =>
      (await engine.searchEvents(all, { text, order: "oldest" })).items.map((h) => h.event.seq);
    expect(await whole("compa")).toEqual([]);
    expect(await whole("multi-ag")).toEqual([]);
    expect(
      await seqs("compa", { prefix: "none" }),
      "prefix: none is the default behaviour",
    ).toEqual([]);
  });

  it("never matches the middle or end of a word", async () => {
    await seed();
    expect(await seqs("paction")).toEqual([]);
    expect(await seqs("action")).toEqual([5]);
    expect(await seqs("ompa")).toEqual([]);
    expect(await seqs("ti-agent")).toEqual([]);
  });

  it("matches a last word under 2 characters whole; leaves CJK as substrings", async () => {
    const log = build().turn();
    log.user("a cat and a catalogue"); // 2
    log.assistant("category c"); // 3
    log.assistant("数据库连接"); // 4
    log.end();
    await put(log);
    expect(await seqs("c")).toEqual([3]);
    expect(await seqs("ca")).toEqual([2, 3]);
    expect(await seqs("cata")).toEqual([2]);
    expect(await seqs("据库")).toEqual([4]);
    expect(await seqs("库数")).toEqual([]);
  });

  it("highlights the whole token that matched", async () => {
    await seed();
    const [hit] = (
      await engine.searchEvents(all, { text: "the compa", prefix: "last", order: "oldest" })
    ).items;
    expect(hit!.snippet).toBe("Run «the» «compaction» before «the» context window fills up");
    const [mixed] = (await engine.searchEvents(all, { text: "数据库sq", prefix: "last" })).items;
    expect(mixed).toBeUndefined(); // `sq` must start a token right after 库: sql comes before
    const [sql] = (await engine.searchEvents(all, { text: "sq", prefix: "last" })).items;
    expect(sql!.snippet).toBe("the action is done; «sql»数据库 updated");
  });

  it("searches hostile text as plain text with prefix on", async () => {
    const log = build().turn();
    log.user("compaction NEAR(door) col:term"); // 2
    log.assistant('she said "hello" AND NOT ^ done'); // 3
    log.end();
    await put(log);
    expect(await seqs('compa"*')).toEqual([2]);
    expect(await seqs("compa*")).toEqual([2]);
    expect(await seqs('"compa')).toEqual([2]);
    expect(await seqs("compa)")).toEqual([2]);
    expect(await seqs("NEAR(do")).toEqual([2]);
    expect(await seqs("col:te")).toEqual([2]);
    expect(await seqs('"hel')).toEqual([3]);
    expect(await seqs("NO")).toEqual([3]);
    expect(await seqs("AN")).toEqual([3]);
    for (const text of ["*", '"*', "(*", '"" OR "*', "^", "a*", ":*", "\\*", "NEAR(", "OR*"]) {
      const page = await engine.searchEvents(all, { text, prefix: "last" });
      expect(Array.isArray(page.items), text).toBe(true);
    }
    expect(await seqs("*")).toEqual([]);
  });
}

/** `searchEvents` with a prefix: ranking, paging and a bad mode. */
function prefixPagingTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  it("ranks prefix matches by relevance on request", async () => {
    const log = build().turn();
    log.user("a long message that mentions migration once among many other unrelated words here");
    log.assistant("migration migrations migrated");
    log.user("migration plan");
    log.end();
    await put(log);
    const page = await engine.searchEvents(all, {
      text: "migra",
      prefix: "last",
      order: "relevance",
    });
    expect(page.items.map((hit) => hit.event.seq)).toEqual([3, 4, 2]);
    expect(page.items[0]!.score!).toBeGreaterThan(page.items[2]!.score!);
    expect(page.items[0]!.snippet).toBe("«migration» «migrations» «migrated»");
  });

  it("pages with the prefix in the cursor's query", async () => {
    const log = build().turn();
    for (let index = 0; index < 5; index += 1) log.assistant(`comets ${index}`);
    log.end();
    await put(log);
    const first = await engine.searchEvents(all, { text: "come", prefix: "last", limit: 3 });
    const second = await engine.searchEvents(all, {
      text: "come",
      prefix: "last",
      limit: 3,
      cursor: first.nextCursor!,
    });
    expect([...first.items, ...second.items].map((h) => h.event.seq)).toEqual([6, 5, 4, 3, 2]);
    await expectInvalid(
      engine.searchEvents(all, { text: "come", limit: 3, cursor: first.nextCursor! }),
      "cursor",
    );
  });

  it("refuses an unknown prefix mode", async () => {
    await expectInvalid(
      engine.searchEvents(all, { text: "x", prefix: "first" as never }),
      "query.prefix",
    );
    await expectInvalid(
      engine.searchSessions(all, { text: "x", prefix: "all" as never }),
      "query.prefix",
    );
  });
}

/** The helpers of the `searchEvents` prefix tests, reading the engine of the running test. */
function prefixHelpers(context: SuiteContext) {
  const seqs = async (text: string, query: Omit<EventSearchQuery, "text"> = {}) =>
    (
      await context.engine.searchEvents(all, { text, prefix: "last", order: "oldest", ...query })
    ).items.map((hit) => hit.event.seq);
  /** One turn whose words start alike: prompt 2, answer 3, compaction 4, answer 5. */
  const seed = async () => {
    const log = build().turn();
    log.user("Run the compaction before the context window fills up"); // 2
    log.assistant("Compacting now: a multi-agent café summary"); // 3
    log.compact("Summary of the compaction: crème brûlée recipe", [2]); // 4
    log.assistant("the action is done; sql数据库 updated"); // 5
    log.end();
    await context.put(log);
    return log;
  };
  return { seqs, seed };
}

/** Registers the `searchSessions with prefix: "last"` tests. */
function prefixSearchSessionsTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  describe('searchSessions with prefix: "last"', () => {
    it("matches the last word of the prompt or cwd as a prefix", async () => {
      const login = conversation("Fix the flaky login test", "ok");
      const docs = build({ cwd: "/home/me/docs-site" }).turn().user("Write release notes").end();
      await put(login, docs);
      const ids = async (text: string, prefix: "none" | "last" = "last") =>
        (await engine.searchSessions(all, { text, prefix })).items.map((s) => s.id);
      expect(await ids("flaky log")).toEqual([login.header.sessionId]);
      expect(await ids("flaky log", "none")).toEqual([]);
      expect(await ids("docs-si")).toEqual([docs.header.sessionId]);
      expect(await ids("ogin")).toEqual([]);
      expect(await ids("rel")).toEqual([docs.header.sessionId]);
    });
  });
}
