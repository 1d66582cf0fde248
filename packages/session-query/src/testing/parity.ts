/**
 * Differential test shared by the indexed backends: the memory backend's JS matcher and the
 * backend's own full text (SQLite FTS5, PostgreSQL tsvector) must agree on what matches. Random
 * logs from a vocabulary full of accents, CJK, punctuation and FTS operators; random queries
 * (whole words, and prefixes with `prefix: "last"`); both engines must return the same events in
 * the same order, with the same snippets.
 */
import { type SessionEvent, type SessionHeader, uuidv7 } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryQueryEngine } from "../memory/memory-engine";
import type { EventSearchQuery, QueryScope, SessionQueryEngine } from "../query-engine";

/** A backend under the parity test: takes whole logs, then answers queries. */
export interface ParityBackend {
  engine: SessionQueryEngine;
  /** Makes the engine see these logs (called once, before the queries). */
  load(logs: { header: SessionHeader; events: SessionEvent[]; jsonl: string }[]): Promise<void>;
  close(): Promise<void>;
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const vocabulary = [
  "alpha",
  "Beta",
  "GAMMA",
  "café",
  "cafe",
  "naïve",
  "Über",
  "uber",
  "straße",
  "multi-agent",
  "multi",
  "agent",
  "don't",
  "c++",
  "C#",
  "foo.bar",
  "x_y",
  "v2",
  "2026",
  "数据库",
  "数据",
  "连接",
  "修复",
  "日本語",
  "ひらがな",
  "カタカナ",
  "한국어",
  "OR",
  "AND",
  "NOT",
  "NEAR",
  "*",
  "(",
  ")",
  '"quoted"',
  "col:on",
  "^caret",
  "e-mail",
  "über-fast",
  "Ωmega",
];
const separators = [" ", " ", " ", "-", ", ", "/", "", "\n", "…"];

/** Registers the parity test of one backend against the memory backend. */
export function describeParity(name: string, create: () => Promise<ParityBackend>): void {
  describe(`memory and ${name} backends agree on matches`, () => {
    const rand = random(20260301);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
    const sentence = () => {
      let text = "";
      const length = 2 + Math.floor(rand() * 7);
      for (let index = 0; index < length; index += 1) {
        text += (index === 0 ? "" : pick(separators)) + pick(vocabulary);
      }
      return text;
    };
    let backend: ParityBackend;
    let engine: SessionQueryEngine;
    const memory = createMemoryQueryEngine();

    beforeAll(async () => {
      backend = await create();
      engine = backend.engine;
      const logs: { header: SessionHeader; events: SessionEvent[]; jsonl: string }[] = [];
      let start = Date.parse("2026-04-01T00:00:00.000Z");
      for (let index = 0; index < 40; index += 1) {
        start += 3_600_000;
        const log = eventLogBuilder({
          sessionId: uuidv7(),
          workspaceId: index % 3 === 0 ? "/w/one" : "/w/two",
          start: new Date(start),
        });
        log.turn().user(sentence());
        for (let turn = 0; turn < 4; turn += 1) {
          if (rand() < 0.4)
            log.call(pick(["shell", "read_file"]), { text: sentence() }).output(sentence());
          else log.assistant(sentence());
        }
        log.end();
        memory.ingest(log.header, log.events);
        logs.push({ header: log.header, events: log.events, jsonl: log.jsonl() });
      }
      await backend.load(logs);
    });
    afterAll(async () => {
      await backend.close();
    });

    const hits = async (engine: SessionQueryEngine, scope: QueryScope, query: EventSearchQuery) =>
      (await engine.searchEvents(scope, { ...query, limit: 200 })).items.map(
        (hit) => `${hit.sessionId}#${hit.event.seq}: ${hit.snippet}`,
      );

    it("returns the same events and snippets for 300 random queries", async () => {
      let nonEmpty = 0;
      for (let index = 0; index < 300; index += 1) {
        const words = 1 + Math.floor(rand() * 2);
        let text = "";
        for (let word = 0; word < words; word += 1) {
          let term = pick(vocabulary);
          // Sometimes a piece of a word: CJK substrings must match, Latin fragments must not.
          if (rand() < 0.25 && term.length > 2) term = term.slice(0, 2);
          text += `${word === 0 ? "" : " "}${rand() < 0.3 ? term.toUpperCase() : term}`;
        }
        const query: EventSearchQuery = { text, order: "oldest" };
        if (rand() < 0.2) query.types = ["message"];
        if (rand() < 0.2) query.toolName = "shell";
        const scope: QueryScope = rand() < 0.3 ? { workspaceIds: ["/w/one"] } : { all: true };
        const expected = await hits(memory, scope, query);
        expect(await hits(engine, scope, query), JSON.stringify({ scope, query })).toEqual(
          expected,
        );
        if (expected.length > 0) nonEmpty += 1;
      }
      // The comparison means something only if many queries find something.
      expect(nonEmpty).toBeGreaterThan(100);
    }, 60_000);

    it('returns the same events and snippets for 300 random queries with prefix: "last"', async () => {
      let nonEmpty = 0;
      let prefixOnly = 0;
      for (let index = 0; index < 300; index += 1) {
        const words = 1 + Math.floor(rand() * 2);
        let text = "";
        for (let word = 0; word < words; word += 1) {
          let term = pick(vocabulary);
          // Often the start of a word (as typed so far), now and then a piece from its middle.
          if (rand() < 0.6 && term.length > 1)
            term = term.slice(0, 1 + Math.floor(rand() * term.length));
          else if (rand() < 0.2 && term.length > 3) term = term.slice(1, 3);
          text += `${word === 0 ? "" : " "}${rand() < 0.3 ? term.toUpperCase() : term}`;
        }
        const query: EventSearchQuery = {
          text,
          prefix: "last",
          order: rand() < 0.5 ? "oldest" : "newest",
        };
        if (rand() < 0.2) query.types = ["message"];
        if (rand() < 0.2) query.toolName = "shell";
        const scope: QueryScope = rand() < 0.3 ? { workspaceIds: ["/w/one"] } : { all: true };
        const expected = await hits(memory, scope, query);
        expect(await hits(engine, scope, query), JSON.stringify({ scope, query })).toEqual(
          expected,
        );
        if (expected.length > 0) nonEmpty += 1;
        if (expected.length > (await hits(memory, scope, { ...query, prefix: "none" })).length) {
          prefixOnly += 1;
        }
        const sessions = async (engine: SessionQueryEngine) =>
          (await engine.searchSessions(scope, { text, prefix: "last", limit: 200 })).items.map(
            (summary) => summary.id,
          );
        expect(await sessions(engine), `sessions ${text}`).toEqual(await sessions(memory));
      }
      expect(nonEmpty).toBeGreaterThan(100);
      // Many queries must find more than whole-word matching would, or prefixes went untested.
      expect(prefixOnly).toBeGreaterThan(50);
    }, 60_000);
  });
}
