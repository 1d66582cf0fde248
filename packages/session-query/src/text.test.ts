import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ftsPhrase, toFtsQuery } from "./fts-query";
import { snippet } from "./snippet";
import { countMatches, eventText, fold, matchable, queryWords, spaceCjk } from "./text";

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

describe('toFtsQuery with prefix: "last"', () => {
  const match = (text: string) => toFtsQuery(text, { prefix: "last" })?.match;

  it("puts the prefix marker after the last phrase only, outside its quotes", () => {
    expect(match("context compa")).toBe('"context" AND "compa"*');
    expect(match("multi-ag")).toBe('"multi-ag"*');
    expect(toFtsQuery("compa")?.match).toBe('"compa"');
  });

  it("keeps what the user typed inside the quotes", () => {
    expect(match('compa"*')).toBe('"compa""*"*');
    expect(match('say "hi" NE')).toBe('"say" AND """hi""" AND "NE"*');
    expect(match("NEAR(do")).toBe('"NEAR(do"*');
    expect(match("col:te")).toBe('"col:te"*');
    expect(match("compa *")).toBe('"compa"*'); // `*` alone is dropped: compa is the last word
  });

  it("matches whole when the last token is short or CJK", () => {
    expect(match("fix d")).toBe('"fix" AND "d"');
    expect(match("a*b")).toBe('"a*b"');
    expect(match("数据")).toBe('"数 据"');
    expect(match("数据sq")).toBe('"数 据 sq"*');
    expect(match("é")).toBe('"é"');
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

describe("prefix words", () => {
  it("match from the start of a token to its end, never from its middle", () => {
    const words = queryWords("the Compa", "last");
    expect(words.map((word) => word.prefix === true)).toEqual([false, true]);
    const text = matchable("Run the compaction; compacted again, not recompaction");
    expect(countMatches(text, words)).toEqual([1, 2]);
    expect(countMatches(matchable("recompaction"), queryWords("compa", "last"))).toBeNull();
    expect(snippet("Café au lait, cafés", queryWords("caf", "last"))).toBe(
      "«Café» au lait, «cafés»",
    );
    // A CJK character ends the token: `sql` matches, the characters after it are not part of it.
    expect(snippet("用sql数据库", queryWords("sq", "last"))).toBe("用«sql»数据库");
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

  it("centres on the earliest match of any word, also when a later word matches first", () => {
    const far = "filler ".repeat(40);
    const text = `beta one ${far}alpha two ${far}beta three`;
    expect(snippet(text, queryWords("alpha beta"))).toBe(`«beta» one ${"filler ".repeat(21)}fill…`);
    expect(snippet(`${far}ALPHA and beta`, queryWords("beta alpha"))).toBe(
      `…filler filler filler filler filler filler filler «ALPHA» and «beta»`,
    );
  });

  it("returns the start of the text without words, and nothing for no text", () => {
    expect(snippet("short text", [])).toBe("short text");
    expect(snippet("", queryWords("x"))).toBe("");
  });
});

describe("eventText", () => {
  it("indexes an x- event by its text field (imported reasoning, unknown entries), nothing else", () => {
    const base = { seq: 1, ts: "2026-01-01T00:00:00.000Z", runId: "r" };
    expect(eventText({ ...base, type: "x-codex-reasoning", text: "think first" })).toBe(
      "think first",
    );
    expect(eventText({ ...base, type: "x-other", note: "not indexed" })).toBe("");
  });
});

describe("matching words that begin with a character outside the BMP", () => {
  // A word whose match was refused (a letter right after it) restarted the search in the middle
  // of its first character's surrogate pair, where the regex found the same match again: the
  // search never returned. Now each refused start moves on by one position.
  it("moves past a refused match of a word starting with a surrogate pair", () => {
    const words = queryWords("𠀀a");
    expect(snippet("𠀀 ab, 𠀀 a.", words)).toBe("𠀀 ab, «𠀀 a».");
    expect(countMatches(matchable("𠀀 ab, 𠀀 a."), words)).toEqual([1]);
    expect(countMatches(matchable("x𝐚𝐛 𝐚𝐛"), queryWords("𝐚𝐛"))).toEqual([1]);
  });
});

describe("regexes", () => {
  it("builds none per query word (a Chinese word's cost 2–6 ms to compile in every search process)", () => {
    const Original = globalThis.RegExp;
    let built = 0;
    globalThis.RegExp = new Proxy(Original, {
      construct(target, args: [string, string?]) {
        built += 1;
        return Reflect.construct(target, args);
      },
    });
    try {
      // Words no other test uses: a cache of per-word regexes would build one for each.
      for (const word of ["索引数据表", "hit-cache-word", "prefixwor"]) {
        const words = queryWords(word, "last");
        expect(snippet(`before ${word}s and after`, words)).toContain("«");
        countMatches(matchable(`${word} again`), words);
      }
    } finally {
      globalThis.RegExp = Original;
    }
    expect(built).toBe(0);
  });
});

describe("snippet's whitespace", () => {
  it("collapses every run of whitespace to one space and trims, as \\s+ → ' ' does", () => {
    const char = fc.constantFrom(
      "a",
      "b",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\u00a0",
      "\u2028",
      "\ufeff",
      "é",
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(snippet(text, [])).toBe(text.replace(/\s+/g, " ").trim());
      }),
      { numRuns: 2000 },
    );
  });
});

describe("fold", () => {
  /** The first definition: every code point on its own (ASCII lowercased, CJK kept, the rest
   * decomposed, marks dropped, lowercased), each folded unit mapped to its code point's start. */
  function referenceFold(text: string): { text: string; origin: number[] } {
    let folded = "";
    const origin: number[] = [];
    let index = 0;
    for (const char of text) {
      let unit = char;
      if (char.charCodeAt(0) < 128) unit = char.toLowerCase();
      else if (
        !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(char)
      ) {
        unit = "";
        for (const part of char.normalize("NFD")) if (!/\p{M}/u.test(part)) unit += part;
        unit = unit.toLowerCase();
      }
      for (let part = 0; part < unit.length; part += 1) origin.push(index);
      folded += unit;
      index += char.length;
    }
    return { text: folded, origin };
  }

  it("folds a text run by run exactly as code point by code point", () => {
    const piece = fc.constantFrom(
      "a",
      "Z",
      "Mutex",
      " ",
      "-",
      "é",
      "É",
      "e\u0301",
      "ß",
      "İ",
      "Σ",
      "ﬁ",
      "Ａ",
      "数",
      "据",
      "库",
      "，",
      "。",
      "ア",
      "ｱ",
      "한",
      "𠀀",
      "😀",
      "\ud800",
      "\udc00",
      "\u0301",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        const folded = fold(text);
        const expected = referenceFold(text);
        expect(folded.text).toBe(expected.text);
        if (folded.origin !== null) expect(folded.origin).toEqual(expected.origin);
        else expect(expected.origin).toEqual([...text].map((_, index) => index));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("a query of one ASCII word", () => {
  it("is cut and quoted exactly as the general path cuts and quotes it", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
    fc.assert(
      fc.property(
        word,
        fc.constantFrom("none", "last") as fc.Arbitrary<"none" | "last">,
        (text, prefix) => {
          // Padded with spaces, the same word goes through the split, fold and tokenizer.
          expect(queryWords(text, prefix)).toEqual(queryWords(` ${text} `, prefix));
          expect(ftsPhrase(text, prefix === "last")).toBe(ftsPhrase(` ${text}`, prefix === "last"));
          expect(toFtsQuery(text, { prefix })).toEqual(toFtsQuery(` ${text} `, { prefix }));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("snippet of one ASCII word in ASCII text", () => {
  it("is the snippet the general path cuts (the same word twice takes it)", () => {
    const word = fc.constantFrom("mutex", "Mutex", "a", "x1", "retry", "db");
    const piece = fc.oneof(
      word,
      fc.constantFrom(" ", "  ", "\n", "-", "_", ".", "9", "mutexes", "xmutex", "MUTEX"),
      fc.constantFrom(" ".repeat(45), "ab ".repeat(15), "lorem ipsum dolor ".repeat(4)),
      fc.string({ unit: fc.constantFrom("a", "b", "M", " ", "1", "\t"), maxLength: 60 }),
    );
    fc.assert(
      fc.property(word, fc.array(piece, { maxLength: 40 }), (raw, pieces) => {
        const text = pieces.join("");
        const [only] = queryWords(raw);
        const markers = { open: "<", close: ">" };
        expect(snippet(text, [only!], markers)).toBe(snippet(text, [only!, only!], markers));
      }),
      { numRuns: 3000 },
    );
  });
});
