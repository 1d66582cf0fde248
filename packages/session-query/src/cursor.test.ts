import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decodeCursor, encodeCursor, queryDigest } from "./cursor";

describe("cursors", () => {
  it("keep their query digests from one version to the next (key order and undefined ignored)", () => {
    // Values computed by the first implementation: a cursor a client holds must stay valid.
    const query = { text: "migration", sessionId: null, types: ["message", "x-a"], roles: null };
    expect(
      queryDigest({ ...query, b: undefined, z: { y: 1, a: [1, { q: "é" }] }, é: 2, A: true }),
    ).toBe("1mb7vny");
    expect(queryDigest({ orderBy: "updatedAt", text: "数据库", search: true })).toBe("12efhiu");
    expect(queryDigest({})).toBe("nf0rvp");
  });

  it("round-trip ASCII and non-ASCII positions", () => {
    for (const position of [{ key: [1838917773440045] }, ["2026-11-30T00:00:00.000Z", "é数"]]) {
      const cursor = encodeCursor("events", "abc", position);
      expect(cursor).toMatch(/^[\w-]+$/);
      expect(decodeCursor(cursor, "events", "abc", z.unknown())).toEqual(position);
    }
  });
});
