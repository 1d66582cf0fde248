import { describe, expect, it } from "vitest";
import { InvalidSessionIdError } from "./errors";
import { assertSessionId, isSessionId, uuidv7 } from "./ids";

describe("session ids", () => {
  it("creates time-ordered UUIDv7s, even within one millisecond", () => {
    const ids = Array.from({ length: 500 }, () => uuidv7(1_700_000_000_000));
    expect(ids.every(isSessionId)).toBe(true);
    expect(ids.every((id) => id[14] === "7")).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    "../etc/passwd",
    "",
    "0193B6E2-7C1A-7D3E-9F00-000000000001",
    "0193b6e2-7c1a-7d3e-9f00-000000000001/..",
    "a".repeat(36),
  ])("rejects %j before any path is built", (value) => {
    expect(isSessionId(value)).toBe(false);
    expect(() => assertSessionId(value)).toThrow(InvalidSessionIdError);
  });
});
