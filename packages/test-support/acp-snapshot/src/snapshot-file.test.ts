import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { compareSnapshotFile, diffLines, toSnapshotLines } from "./snapshot-file";

describe("snapshot files", () => {
  it("writes a missing snapshot, matches it, and reports a changed line readably", () => {
    const path = join(testTempDir("acp-snap-"), "scenario.wire.jsonl");
    const lines = toSnapshotLines([
      { from: "client", method: "initialize" },
      { from: "agent", result: { stopReason: "end_turn" } },
    ]);
    const previous = process.env.CI;
    delete process.env.CI;
    try {
      expect(compareSnapshotFile(path, lines, { update: false }).status).toBe("written");
    } finally {
      if (previous !== undefined) process.env.CI = previous;
    }
    expect(compareSnapshotFile(path, lines, { update: false })).toEqual({ status: "match" });
    const changed = toSnapshotLines([
      { from: "client", method: "initialize" },
      { from: "agent", result: { stopReason: "cancelled" } },
    ]);
    const result = compareSnapshotFile(path, changed, { update: false });
    expect(result.status).toBe("mismatch");
    expect(result.status === "mismatch" && result.diff).toContain("first difference at line 2");
    expect(result.status === "mismatch" && result.diff).toContain(
      'result.stopReason: expected "end_turn", got "cancelled"',
    );
    expect(compareSnapshotFile(path, changed, { update: true }).status).toBe("written");
    expect(readFileSync(path, "utf8")).toBe(`${changed.join("\n")}\n`);
  });

  it("never writes a missing snapshot on CI", () => {
    const path = join(testTempDir("acp-snap-"), "missing.jsonl");
    const previous = process.env.CI;
    process.env.CI = "1";
    try {
      expect(compareSnapshotFile(path, ["{}"], { update: false }).status).toBe("mismatch");
    } finally {
      if (previous === undefined) delete process.env.CI;
      else process.env.CI = previous;
    }
    writeFileSync(path, "");
  });

  it("shows context and counts extra lines", () => {
    const diff = diffLines(
      ['{"a":1}', '{"b":2}', '{"c":3}'],
      ['{"a":1}', '{"b":2}', '{"c":4}', '{"d":5}'],
    );
    expect(diff).toBe(
      [
        "first difference at line 3 (expected 3 lines, got 4)",
        '  1  {"a":1}',
        '  2  {"b":2}',
        '- 3  {"c":3}',
        '+ 3  {"c":4}',
        "fields:",
        "  c: expected 3, got 4",
        "(1 more line after this one; later lines may differ too)",
      ].join("\n"),
    );
  });
});
