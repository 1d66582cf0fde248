import { describe, expect, it } from "vitest";
import { ftsPhrase, toFtsQuery } from "./fts-query";
import { countMatches, matchable, queryWords, snippet, spaceCjk } from "./text";

describe("toFtsQuery", () => {
  it("quotes every word and doubles quotes, ANDing the phrases", () => {
    expect(toFtsQuery('say "hi" OR NOT')?.match).toBe('"say" AND """hi""" AND "OR" AND "NOT"');
    expect(ftsPhrase('a"b')).toBe('"a""b"');
  });

  it("spaces out CJK characters so a Chinese word is a phrase of characters", () => {
    expect(toFtsQuery("数据库")?.match).toBe('"数 据 库"');
    expect(toFtsQuery("sql数据")?.match).toBe('"sql 数 据"');
  });

  it("drops words without letters or digits, and returns null when none is left", () => {
    expect(toFtsQuery("( foo )")?.words.map((word) => word.raw)).toEqual(["foo"]);
    expect(toFtsQuery('( " -- *')).toBeNull();
    expect(toFtsQuery("   ")).toBeNull();
  });
});

describe("text matching", () => {
  it("cuts words into unicode61-style tokens, folding case and accents", () => {
    expect(queryWords("Multi-Agent café 数据").map((word) => word.tokens)).toEqual([
      ["multi", "agent"],
      ["cafe"],
      ["数", "据"],
    ]);
  });

  it("matches whole Latin tokens but CJK as substrings", () => {
    const text = matchable("Databases and the database; 大数据库");
    expect(countMatches(text, queryWords("database"))).toEqual([1]);
    expect(countMatches(text, queryWords("data"))).toBeNull();
    expect(countMatches(text, queryWords("数据"))).toEqual([1]);
    expect(countMatches(text, queryWords("DATABASE 数据库"))).toEqual([1, 1]);
  });

  it("puts spaces around CJK characters for the index", () => {
    expect(spaceCjk("ab数据c")).toBe("ab 数  据 c");
  });
});

describe("snippet", () => {
  it("marks every match in the original text, accents kept", () => {
    expect(snippet("Le Café et le CAFE", queryWords("cafe"))).toBe("Le «Café» et le «CAFE»");
  });

  it("cuts long text around the first match and collapses whitespace", () => {
    const text = `${"word ".repeat(100)}target\n\n  here ${"tail ".repeat(100)}`;
    const result = snippet(text, queryWords("target"), { open: "[", close: "]" });
    expect(result).toMatch(/^….*\[target\] here .*…$/u);
    expect(result.length).toBeLessThanOrEqual(164);
  });

  it("returns the start of the text without words, and nothing for no text", () => {
    expect(snippet("short text", [])).toBe("short text");
    expect(snippet("", queryWords("x"))).toBe("");
  });
});
