import { describe, expect, it } from "vitest";
import { z } from "zod";
import { lazySchema, lazySchemaObject } from "./lazy-schema";

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

describe("lazySchemaObject", () => {
  it("builds on first use and behaves as the schema it stands for", () => {
    let builds = 0;
    const build = lazySchema(() => {
      builds += 1;
      return z.looseObject({ type: z.literal("message"), seq: z.number().int().min(1) });
    });
    const schema = lazySchemaObject(build);
    expect(builds).toBe(0);
    expect(schema.safeParse({ type: "message", seq: 1, extra: true }).success).toBe(true);
    expect(schema.safeParse({ type: "message", seq: 0 }).success).toBe(false);
    expect(builds).toBe(1);
    expect(schema instanceof z.ZodObject).toBe(true);
    expect(schema.shape.seq).toBe(build().shape.seq);
    // Composed with other schemas (methods act on the real schema).
    expect(schema.optional().safeParse(undefined).success).toBe(true);
    const union = z.discriminatedUnion("type", [schema, z.looseObject({ type: z.literal("x") })]);
    expect(union.safeParse({ type: "message", seq: 2 }).success).toBe(true);
    expect(union.safeParse({ type: "message", seq: -1 }).success).toBe(false);
    expect(Object.keys(schema)).toEqual(Object.keys(build()));
    expect(builds).toBe(1);
  });
});
