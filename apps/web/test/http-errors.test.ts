import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BadRequestError, parseInput } from "../src/server/http-errors";

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return (error as Error).message;
  }
  throw new Error("expected a BadRequestError");
}

describe("parseInput", () => {
  it("names a field once when the field is the whole input", () => {
    const id = z.string().regex(/^[0-9a-f-]{36}$/, "not a session id (a lowercase UUID)");
    expect(messageOf(() => parseInput(id, "zzz", "sessionId"))).toBe(
      "Invalid sessionId: not a session id (a lowercase UUID)",
    );
  });

  it("says a coerced number parameter must be a number (not 'received NaN')", () => {
    const query = z.object({ limit: z.coerce.number().int().min(1) }).strict();
    expect(messageOf(() => parseInput(query, { limit: "abc" }, "query"))).toBe(
      "Invalid query: limit: must be a number",
    );
    expect(messageOf(() => parseInput(query, { limit: "0" }, "query"))).toMatch(
      /^Invalid query: limit: Too small/,
    );
  });
});
