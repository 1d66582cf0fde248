import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { SkippedLine } from "../types";
import { excerpt, MAX_LEADING_FAILURES, parseEntries } from "./common";

/** The whole text flattened, then cut: what `excerpt` must give. */
function reference(text: string, length: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

/** Deterministic texts of words and whitespace runs of every length around the cut. */
function* texts(): Generator<string> {
  let seed = 7;
  const next = (max: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % max;
  };
  const blanks = [" ", "  ", "\n", "\t \n", " ".repeat(700), "\n".repeat(5000)];
  for (let sample = 0; sample < 300; sample += 1) {
    let text = next(3) === 0 ? blanks[next(blanks.length)]! : "";
    const parts = next(400);
    for (let part = 0; part < parts; part += 1) {
      text += next(4) === 0 ? blanks[next(blanks.length)]! : `w${"x".repeat(next(30))}`;
    }
    yield text;
  }
}

describe("excerpt", () => {
  it("gives what flattening the whole text gives, for every length", () => {
    for (const text of texts()) {
      for (const length of [1, 2, 50, 200, 1023, 4000]) {
        expect(excerpt(text, length)).toBe(reference(text, length));
      }
    }
  });

  it("flattens only the start of a huge text", () => {
    const huge = `start ${"A ".repeat(30 * 1024 * 1024)}`;
    const replace = vi.spyOn(String.prototype, "replace");
    try {
      expect(excerpt(huge, 20)).toBe("start A A A A A A A…");
      const flattened = replace.mock.contexts.map((text) => String(text).length);
      expect(Math.max(...flattened)).toBeLessThanOrEqual(4096);
    } finally {
      replace.mockRestore();
    }
  });
});

describe("parseEntries", () => {
  const schema = z.looseObject({ type: z.string() });
  const fileOf = (texts: string[]) => ({
    path: "/f.jsonl",
    lines: texts.map((text, index) => ({ line: index + 1, offset: index * 10, text })),
  });

  it("refuses a file whose first MAX_LEADING_FAILURES lines are no entry, in one record", () => {
    const skipped: SkippedLine[] = [];
    const garbage = Array.from({ length: MAX_LEADING_FAILURES * 3 }, () => "a log line");
    const entries = parseEntries(fileOf([...garbage, '{"type":"x"}']), schema, "Codex", skipped);
    expect(entries).toEqual([]);
    expect(skipped).toEqual([
      {
        path: "/f.jsonl",
        line: 0,
        offset: 0,
        reason: `not a Codex file: none of its first ${MAX_LEADING_FAILURES} lines is an entry`,
      },
    ]);
  });

  it("lists each bad line of a file whose entries start before that", () => {
    const skipped: SkippedLine[] = [{ path: "/other", line: 1, offset: 0, reason: "kept" }];
    const bad = Array.from({ length: MAX_LEADING_FAILURES - 1 }, () => "{torn");
    const texts = [...bad, '{"type":"x"}', ...bad, '{"no":"type"}'];
    const entries = parseEntries(fileOf(texts), schema, "Codex", skipped);
    expect(entries.map((entry) => entry.line)).toEqual([MAX_LEADING_FAILURES]);
    expect(skipped).toHaveLength(1 + 2 * bad.length + 1);
    expect(skipped[0]?.reason).toBe("kept");
    expect(skipped.at(-1)).toMatchObject({ line: texts.length, reason: "not a Codex entry" });
  });
});

describe("parseEntries asIs", () => {
  const schema = z.looseObject({ type: z.string(), id: z.string().optional() });
  const file = (texts: string[]) => ({
    path: "/f.jsonl",
    lines: texts.map((text, index) => ({ line: index + 1, offset: index * 100, text })),
  });

  it("takes the parsed value itself (source key order) when the schema accepts it as it is", () => {
    const skipped: SkippedLine[] = [];
    const entries = parseEntries(
      file(['{"extra":1,"id":"a","type":"t"}', '{"type":5}', "nope"]),
      schema,
      "test",
      skipped,
      { asIs: true },
    );
    expect(entries.map((entry) => Object.keys(entry.value as object))).toEqual([
      ["extra", "id", "type"],
    ]);
    // What the check refuses still goes to zod, which words the skip as before.
    expect(skipped.map((line) => line.reason)).toEqual(["not a test entry", "not JSON"]);
    // Without asIs: zod's copy, the schema's keys first.
    const copied = parseEntries(file(['{"extra":1,"id":"a","type":"t"}']), schema, "test", []);
    expect(Object.keys(copied[0]!.value as object)).toEqual(["type", "id", "extra"]);
  });
});
