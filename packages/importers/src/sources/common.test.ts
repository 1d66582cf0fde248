import { describe, expect, it, vi } from "vitest";
import { excerpt } from "./common";

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
