import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { normalizeEventQuery } from "./normalize-query";
import { fastEventQuery, fastScope } from "./query-fast-path";
import { eventSearchQuerySchema, parseScope, queryScopeSchema } from "./query-schema";

/** Strings around every limit the schemas set, and the values of each enum. */
const anyString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("", "none", "last", "newest", "oldest", "relevance", "NEWEST", " last"),
  fc.constantFrom(63, 64, 65, 1999, 2000, 2001, 4095, 4096, 4097).map((n) => "é".repeat(n)),
  fc.uuid(),
  fc.uuid().map((id) => id.toUpperCase()),
);

class Box {
  open = "[";
  close = "]";
}

/** Anything a caller might hand over, right or wrong. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  anyString,
  fc.integer({ min: -3, max: 250 }),
  fc.constantFrom(0, -0, 1.5, Number.NaN, Infinity, -Infinity, 2 ** 53, 2 ** 53 - 1, 1e21),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(null, undefined),
  fc.array(anyString, { maxLength: 3 }),
  fc.record({ open: anyString, close: anyString }, { requiredKeys: [] }),
  fc.constantFrom(new Box(), new Date(0), Object.create(null) as object, [], { open: "<" }),
);

/** A field value that is usually right for its key, so that most queries pass the fast path. */
function likelyValue(key: string): fc.Arbitrary<unknown> {
  const right: Record<string, fc.Arbitrary<unknown>> = {
    text: fc.string({ maxLength: 40 }),
    prefix: fc.constantFrom("none", "last"),
    sessionId: fc.uuid(),
    currentOnly: fc.boolean(),
    order: fc.constantFrom("newest", "oldest", "relevance"),
    limit: fc.integer({ min: 1, max: 400 }),
    cursor: fc.string({ maxLength: 40 }),
    highlight: fc.record({ open: fc.string({ maxLength: 3 }), close: fc.string({ maxLength: 3 }) }),
    types: fc.constant(["message"]),
    since: fc.constant("2026-01-01T00:00:00.000Z"),
  };
  const good = Object.hasOwn(right, key) ? right[key] : undefined;
  return good === undefined ? anyValue : fc.oneof({ arbitrary: good, weight: 4 }, anyValue);
}

const queryKey = fc.constantFrom(
  "text",
  "prefix",
  "sessionId",
  "currentOnly",
  "order",
  "limit",
  "cursor",
  "highlight",
  "types",
  "since",
  "extra",
  "__proto__",
);

/** Queries as objects (own keys, `__proto__` too), or not objects at all. */
const anyQuery: fc.Arbitrary<unknown> = fc.oneof(
  {
    arbitrary: fc
      .uniqueArray(queryKey, { maxLength: 5 })
      .chain((keys) => fc.tuple(...keys.map((key) => fc.tuple(fc.constant(key), likelyValue(key)))))
      .chain((entries) =>
        fc.boolean().map((bare) => {
          const query = Object.fromEntries(entries);
          return bare ? Object.assign(Object.create(null), query) : query;
        }),
      ),
    weight: 9,
  },
  anyValue,
);

describe("the query fast path", () => {
  it("either declines an event query or returns exactly what the schema returns", () => {
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(anyQuery, (query) => {
        runs += 1;
        const fast = fastEventQuery(query);
        if (fast === undefined) return;
        taken += 1;
        const parsed = eventSearchQuerySchema().safeParse(query);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 3000 },
    );
    // The property is only worth something when the fast path answers often.
    expect(taken / runs).toBeGreaterThan(0.2);
  });

  it("either declines a scope or returns exactly what the schema returns", () => {
    const workspaceId = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(4095, 4096, 4097).map((n) => "w".repeat(n)),
      anyValue,
    );
    const anyScope = fc.oneof(
      fc.record({ all: fc.oneof(fc.constant(true), anyValue) }),
      fc.record({
        workspaceIds: fc.oneof(
          fc.array(workspaceId, { maxLength: 4 }),
          fc.constant(Array.from({ length: 1001 }, () => "w")),
          fc.constant(Array.from({ length: 1000 }, () => "w")),
          anyValue,
        ),
      }),
      fc.record({ all: fc.constant(true), workspaceIds: fc.constant(["w"]) }),
      fc.record({ all: fc.constant(true), extra: anyValue }),
      anyValue,
    );
    let taken = 0;
    fc.assert(
      fc.property(anyScope, (scope) => {
        const fast = fastScope(scope);
        if (fast === undefined) return;
        taken += 1;
        const parsed = queryScopeSchema().safeParse(scope);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(200);
  });
});

describe("objects whose keys the fast path does not see", () => {
  /** `value` with `key` set but not enumerable (`Object.defineProperty`'s default). */
  const hidden = <T extends object>(value: T, key: string, keyValue: unknown): T =>
    Object.defineProperty(value, key, { value: keyValue, enumerable: false });

  it("leaves a key that is not enumerable to the schema, which reads it", () => {
    // The schema reads every key it knows; `for…in` skips these. Taken by the fast path, the
    // text and the type filter were dropped (every event matched) and a limit of 0 was accepted.
    expect(normalizeEventQuery(hidden({}, "text", "secret")).text).toBe("secret");
    expect(normalizeEventQuery(hidden({ text: "a" }, "types", ["message"])).types).toEqual([
      "message",
    ]);
    expect(() => normalizeEventQuery(hidden({ text: "a" }, "limit", 0))).toThrow(/query\.limit/);
    expect(fastEventQuery(hidden({ text: "a" }, "order", "oldest"))).toBeUndefined();
    expect(fastScope(hidden({ all: true }, "workspaceIds", ["w"]))).toBeUndefined();
  });
});

describe("validating a search", () => {
  afterEach(() => vi.restoreAllMocks());

  it("runs no zod parse for the common scope and query, and zod for the rest", () => {
    const querySchema = vi.spyOn(eventSearchQuerySchema(), "safeParse");
    const scopeSchema = vi.spyOn(queryScopeSchema(), "safeParse");
    parseScope({ all: true });
    parseScope({ workspaceIds: ["/home/me/shop"] });
    const query = normalizeEventQuery({ text: "retry policy", limit: 20, order: "newest" });
    expect(query.limit).toBe(20);
    expect(querySchema).not.toHaveBeenCalled();
    expect(scopeSchema).not.toHaveBeenCalled();
    normalizeEventQuery({ text: "retry", types: ["message"] });
    expect(querySchema).toHaveBeenCalledTimes(1);
    expect(() => parseScope({ all: false })).toThrow(/scope/);
    expect(scopeSchema).toHaveBeenCalledTimes(1);
  });

  it("words errors as the schema does when the fast path declines", () => {
    expect(() => normalizeEventQuery({ text: "x", limit: 0 })).toThrow(
      /Invalid query: query\.limit: /,
    );
    expect(() => normalizeEventQuery({ text: 7 })).toThrow(/Invalid query: query\.text: /);
  });
});
