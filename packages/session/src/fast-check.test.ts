import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileFastCheck } from "./fast-check";
import { extensionEventSchema, knownEventSchemas, sessionHeaderSchema } from "./schema";
import { eventLogBuilder } from "./testing";

const schemas = {
  ...knownEventSchemas,
  extension: extensionEventSchema,
  header: sessionHeaderSchema,
};

const sample = (() => {
  const log = eventLogBuilder()
    .system("s")
    .turn()
    .user("u")
    .call("read_file", { path: "a" })
    .output("o")
    .compact("c", [4, 5]);
  log.push({
    type: "model/request",
    runId: "r",
    requestId: "q",
    provider: "openai",
    model: "m",
    inputDigest: "d",
    toolsDigest: "t",
    inputItems: [1, 3],
  });
  log.push({
    type: "assistant/chunk",
    runId: "r",
    requestId: "q",
    index: 0,
    delta: { callId: "c", arguments: "{" },
  });
  log.push({
    type: "model/response",
    runId: "r",
    requestId: "q",
    finishReason: "stop",
    usage: { inputTokens: 1, outputTokens: 2 },
  });
  log.push({
    type: "approval/request",
    runId: "r",
    callId: "c",
    options: ["allow_once", "reject"],
  });
  log.push({ type: "approval/decision", runId: "r", callId: "c", decision: "reject" });
  log.push({ type: "goal/set", runId: "r", goal: null });
  log.push({ type: "error", runId: "r", code: "E", message: "m" });
  log.push({ type: "x-note", runId: "r", anything: { nested: true } });
  log.end();
  return [log.header as Record<string, unknown>, ...(log.events as Array<Record<string, unknown>>)];
})();

const valueArbitrary = fc.oneof(
  fc.integer({ min: -3, max: 50 }),
  fc.double(),
  fc.string({ maxLength: 6 }),
  fc.constant(""),
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.array(fc.integer({ min: -1, max: 9 }), { maxLength: 3 }),
  fc.constantFrom(
    "x-ok",
    "user",
    "robot",
    "replace",
    "stop",
    "allow_once",
    { text: "t" },
    { callId: 1, arguments: "" },
    [],
    {},
  ),
);

function schemaFor(value: Record<string, unknown>) {
  if (value.type === "session") return schemas.header;
  const type = String(value.type);
  return type in knownEventSchemas
    ? knownEventSchemas[type as keyof typeof knownEventSchemas]
    : schemas.extension;
}

describe("compileFastCheck", () => {
  it("compiles every schema of the log format (no silent fallback to zod)", () => {
    for (const [name, schema] of Object.entries(schemas))
      expect(compileFastCheck(schema), name).toBeTypeOf("function");
  });

  it("accepts exactly what zod accepts, on valid lines with one field changed or removed", () => {
    fc.assert(
      fc.property(
        fc.nat(sample.length - 1),
        fc.nat(),
        valueArbitrary,
        fc.boolean(),
        (lineIndex, fieldIndex, value, nested) => {
          const original = structuredClone(sample[lineIndex]!);
          const schema = schemaFor(original);
          const target =
            nested && typeof original.delta === "object"
              ? (original.delta as Record<string, unknown>)
              : original;
          const keys = Object.keys(target);
          const key = keys[fieldIndex % keys.length]!;
          if (value === undefined) delete target[key];
          else target[key] = value;
          const fast = compileFastCheck(schema)!;
          expect(fast(original), JSON.stringify(original)).toBe(schema.safeParse(original).success);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("accepts every valid sample line", () => {
    for (const line of sample)
      expect(compileFastCheck(schemaFor(line))!(line), JSON.stringify(line)).toBe(true);
  });
});
