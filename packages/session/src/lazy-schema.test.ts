import { describe, expect, it } from "vitest";
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

describe("lazySchema", () => {
  it("builds the schema on the first call only, and the schema is as strict", () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.strictObject({ model: z.string() });
    });
    expect(builds).toBe(0);
    expect(schema().parse({ model: "m" })).toEqual({ model: "m" });
    expect(schema().safeParse({ model: "m", extra: 1 }).success).toBe(false);
    expect(schema()).toBe(schema());
    expect(builds).toBe(1);
  });
});
