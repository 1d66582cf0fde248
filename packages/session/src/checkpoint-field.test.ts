import { describe, expect, it } from "vitest";
import { EventLogCorruptError } from "./errors";
import { parseEventLine } from "./parse-line";

const turnStart = (checkpoint: unknown) =>
  JSON.stringify({
    seq: 2,
    ts: "2026-12-02T00:00:00.000Z",
    runId: "r1",
    type: "turn/start",
    policy: { approval: "auto" },
    model: "openai:m",
    resumed: false,
    checkpoint,
  });

describe("checkpoint field (optional v1)", () => {
  it("reads a turn/start checkpoint with changed, omitted and more", () => {
    const event = parseEventLine(
      turnStart({
        id: "a".repeat(40),
        changed: [
          { path: "src/a.ts", change: "modified" },
          { path: "b.txt", change: "renamed", from: "a.txt" },
        ],
        more: 3,
        omitted: [{ path: "big.bin", reason: "too-large", bytes: 99_000_000 }],
      }),
    );
    expect(event.type === "turn/start" && event.checkpoint?.changed[1]?.from).toBe("a.txt");
  });

  it("reads a checkpoint that was skipped (no id, the reason kept)", () => {
    const event = parseEventLine(turnStart({ changed: [], skipped: "git is not installed" }));
    expect(event.type === "turn/start" && event.checkpoint?.skipped).toBe("git is not installed");
  });

  it("refuses an unknown change kind", () => {
    expect(() =>
      parseEventLine(turnStart({ id: "x", changed: [{ path: "a", change: "exploded" }] })),
    ).toThrow(EventLogCorruptError);
  });

  it("reads a function_call_output checkpoint", () => {
    const line = JSON.stringify({
      seq: 5,
      ts: "2026-12-02T00:00:00.000Z",
      runId: "r1",
      type: "function_call_output",
      callId: "c1",
      output: "ok",
      isError: false,
      sourceEventSeqs: [4],
      checkpoint: { id: "b".repeat(40), changed: [{ path: "x", change: "deleted" }] },
    });
    const event = parseEventLine(line);
    expect(event.type === "function_call_output" && event.checkpoint?.changed).toEqual([
      { path: "x", change: "deleted" },
    ]);
  });
});
