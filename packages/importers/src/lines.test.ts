import { describe, expect, it } from "vitest";
import { parseJsonLine, splitLines } from "./lines";

describe("splitLines", () => {
  it("skips a line over the limit without decoding it, and keeps the lines around it", () => {
    const huge = `{"type":"user","image":"${"A".repeat(2048)}"}`;
    const bytes = Buffer.from(`{"a":1}\r\n${huge}\n\n{"b":2}`);
    const { lines, skipped } = splitLines(bytes, { path: "/f.jsonl", maxLineBytes: 1024 });
    expect(lines.map((line) => [line.line, line.text, line.last ?? false])).toEqual([
      [1, '{"a":1}', false],
      [4, '{"b":2}', true],
    ]);
    expect(skipped).toEqual([
      { path: "/f.jsonl", line: 2, offset: 9, reason: `line too long (${huge.length} bytes)` },
    ]);
  });

  it("handles a 50 MB line at the default limit", () => {
    const line = `{"data":"${"x".repeat(50 * 1024 * 1024)}"}`;
    const { lines, skipped } = splitLines(Buffer.from(`${line}\n{"ok":true}\n`), {
      path: "/big.jsonl",
    });
    expect(lines.map((entry) => entry.text)).toEqual(['{"ok":true}']);
    expect(skipped[0]?.reason).toMatch(/^line too long/);
  });
});

describe("parseJsonLine", () => {
  it("calls an unparsable final line without newline truncated, any other one not JSON", () => {
    expect(parseJsonLine({ line: 3, offset: 10, text: "{", last: true }, "/f")).toEqual({
      ok: false,
      skipped: { path: "/f", line: 3, offset: 10, reason: "truncated last line" },
    });
    expect(parseJsonLine({ line: 2, offset: 5, text: "nope" }, "/f")).toMatchObject({
      skipped: { reason: "not JSON" },
    });
  });
});
