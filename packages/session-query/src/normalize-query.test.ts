import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { queryDigest } from "./cursor";
import { type NormalizedEventQuery, normalizeEventQuery } from "./normalize-query";

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
