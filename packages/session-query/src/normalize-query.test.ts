import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeCursor, queryDigest } from "./cursor";
import { InvalidQueryError } from "./errors";
import {
  eventPosition,
  type NormalizedEventQuery,
  normalizeEventQuery,
  normalizeSessionQuery,
  sessionCursor,
  sessionPage,
} from "./normalize-query";
import type { SessionSummary } from "./query-engine";

/** The digest as cursors were first tied to queries: `queryDigest` of the query's identity. */
function identityDigest(query: NormalizedEventQuery): string {
  const { limit, cursor, markers, words, prefix, digest, ...identity } = query;
  return queryDigest(prefix === "none" ? identity : { ...identity, prefix });
}

describe("normalizeEventQuery", () => {
  it("ties cursors to the digest of the query's identity (cursors handed out stay valid)", () => {
    const query = fc.record(
      {
        text: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("数据库 pool", "  ")),
        prefix: fc.constantFrom("none", "last"),
        sessionId: fc.uuid(),
        types: fc.constantFrom(["message"], ["function_call", "message", "message"]),
        roles: fc.constantFrom(["user"], ["assistant", "user"]),
        toolName: fc.string({ minLength: 1, maxLength: 8 }),
        callId: fc.string({ minLength: 1, maxLength: 8 }),
        since: fc.constant("2026-01-31T12:00:00.000Z"),
        until: fc.constant("2026-02-01"),
        currentOnly: fc.boolean(),
        order: fc.constantFrom("newest", "oldest", "relevance"),
        limit: fc.integer({ min: 1, max: 300 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(query, (input) => {
        const normalized = normalizeEventQuery(input);
        expect(normalized.digest).toBe(identityDigest(normalized));
      }),
      { numRuns: 500 },
    );
    expect(normalizeEventQuery({ text: "migration", limit: 20 }).digest).toBe(
      normalizeEventQuery({ text: "migration", limit: 50, highlight: { open: "<", close: ">" } })
        .digest,
    );
  });
});

describe("eventPosition", () => {
  it("refuses a cursor of the query's digest whose position belongs to another ordering", () => {
    const newest = normalizeEventQuery({ text: "migration" });
    const relevance = normalizeEventQuery({ text: "migration", order: "relevance" });
    const keyed = { key: [42] };
    const offset = { offset: 20, snapshotMs: 1 };
    const position = (query: NormalizedEventQuery, value: unknown) =>
      eventPosition({ ...query, cursor: encodeCursor("events", query.digest, value) });
    expect(position(newest, keyed)).toEqual(keyed);
    expect(position(relevance, offset)).toEqual(offset);
    for (const [query, value] of [
      [newest, offset],
      [relevance, keyed],
    ] as const) {
      const error = (() => {
        try {
          position(query, value);
        } catch (caught) {
          return caught;
        }
      })();
      expect(InvalidQueryError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("different ordering");
    }
  });
});

describe("sessionPage", () => {
  const query = normalizeSessionQuery({ limit: 2, orderBy: "createdAt" }, false);
  const row = (id: string, createdAt: string) => ({ id, createdAt });
  const summaryOf = (r: { id: string; createdAt: string }) =>
    ({ id: r.id, createdAt: r.createdAt, updatedAt: "2026-12-02T00:00:00.000Z" }) as SessionSummary;

  it("shows the limit, and a cursor after the last shown session only when a row past it was read", () => {
    const rows = [
      row("a", "2026-12-01T03:00:00.000Z"),
      row("b", "2026-12-01T02:00:00.000Z"),
      row("c", "2026-12-01T01:00:00.000Z"),
    ];
    const page = sessionPage(query, rows, summaryOf);
    expect(page.items.map((item) => item.id)).toEqual(["a", "b"]);
    expect(page.nextCursor).toBe(sessionCursor(query, "2026-12-01T02:00:00.000Z", "b"));
    expect(sessionPage(query, rows.slice(0, 2), summaryOf).nextCursor).toBeNull();
  });
});
