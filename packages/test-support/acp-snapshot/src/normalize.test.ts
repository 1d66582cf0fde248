import { describe, expect, it } from "vitest";
import { createNormalizer } from "./normalize";

describe("createNormalizer", () => {
  it("numbers ids by kind in order of first appearance, the same id keeping its name", () => {
    const normalizer = createNormalizer();
    const a = "0193b6e2-7c1a-7d3e-9f00-000000000001";
    const b = "0193b6e2-7c1a-7d3e-9f00-000000000002";
    const wire = normalizer.normalize({ sessionId: b, update: { runId: a, toolCallId: "call_x" } });
    const log = normalizer.normalize({
      sessionId: b,
      runId: a,
      text: `see ${b}`,
      callId: "call_x",
    });
    expect(wire).toEqual({
      sessionId: "<SESSION 1>",
      update: { runId: "<RUN 1>", toolCallId: "<CALL 1>" },
    });
    expect(log).toEqual({
      sessionId: "<SESSION 1>",
      runId: "<RUN 1>",
      text: "see <SESSION 1>",
      callId: "<CALL 1>",
    });
  });

  it("replaces timestamps, volatile numbers, paths and literals", () => {
    const normalizer = createNormalizer({
      paths: { "<CWD>": "/tmp/x/work", "<HOME>": "/tmp/x" },
      literals: { "<VERSION>": "0.1.0" },
    });
    expect(
      normalizer.normalize({
        ts: "2026-11-29T23:15:07.123Z",
        durationMs: 12,
        cwd: "/tmp/x/work/src",
        home: "/tmp/x/sessions",
        agent: "tapedeck 0.1.0",
        count: 3,
      }),
    ).toEqual({
      ts: "<TS>",
      durationMs: "<NUMBER>",
      cwd: "<CWD>/src",
      home: "<HOME>/sessions",
      agent: "tapedeck <VERSION>",
      count: 3,
    });
  });

  it("does not mutate its input", () => {
    const input = { sessionId: "0193b6e2-7c1a-7d3e-9f00-000000000001" };
    createNormalizer().normalize(input);
    expect(input.sessionId).toBe("0193b6e2-7c1a-7d3e-9f00-000000000001");
  });
});
