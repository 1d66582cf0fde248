import { describe, expect, it } from "vitest";
import { InvalidSessionIdError } from "./errors";
import { assertSessionId, isSessionId, layoutUuidv7, uuidv7 } from "./ids";

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

describe("layoutUuidv7", () => {
  it("puts the milliseconds in the first 48 bits, sets version 7 and the variant, keeps the rest", () => {
    const bytes = new Uint8Array(16).fill(0xff);
    const id = layoutUuidv7(0x0193_b6e2_7c1a, bytes);
    expect(id).toBe("0193b6e2-7c1a-7fff-bfff-ffffffffffff");
    expect(isSessionId(id)).toBe(true);
    expect(layoutUuidv7(0, new Uint8Array(16))).toBe("00000000-0000-7000-8000-000000000000");
  });
});
