/**
 * Turns raw user text into an FTS5 MATCH expression that can never be a syntax error: each word
 * becomes one quoted phrase (quotes doubled), CJK characters spaced out as at index time so that
 * a Chinese word is a phrase of single-character tokens (substring search). Phrases are ANDed.
 * Operators typed by the user (`OR`, `NOT`, `NEAR`, `*`, `:`, `(`) are searched as text. With
 * `prefix: "last"` the last word's phrase gets FTS5's prefix marker outside the quotes
 * (`"compa"*`), so its last token matches as a prefix; a `*` the user typed stays inside.
 */
import type { PrefixMatching } from "./query-engine";
import { type QueryWord, queryWords, simpleWord, spaceCjk } from "./text";

/**
 * The FTS5 phrase of one word: `"…"` with inner quotes doubled, CJK spaced and NULs made spaces
 * (FTS5 reads a query up to its first NUL: an unterminated string; a NUL separates tokens as
 * any punctuation does); with `prefix`, followed by `*` (the phrase's last token matches as a
 * prefix).
 */
export function ftsPhrase(word: string, prefix = false): string {
  if (simpleWord.test(word)) return prefix ? `"${word}"*` : `"${word}"`;
  const spaced = spaceCjk(word).replaceAll("\u0000", " ").trim();
  const phrase = `"${spaced.replace(/\s+/gu, " ").replaceAll('"', '""')}"`;
  return prefix ? `${phrase}*` : phrase;
}

/** Options of {@link toFtsQuery}. */
export interface FtsQueryOptions {
  /** `last`: the last word matches as a prefix (see {@link queryWords}). Default `none`. */
  prefix?: PrefixMatching;
}

/** The MATCH expression for user text, or `null` when it holds nothing searchable. */
export function toFtsQuery(
  text: string,
  options: FtsQueryOptions = {},
): { match: string; words: QueryWord[] } | null {
  const words = queryWords(text, options.prefix ?? "none");
  const match = ftsMatch(words);
  return match === null ? null : { match, words };
}

/**
 * The MATCH expression for words already cut by {@link queryWords} (a normalized query's
 * `words`), or `null` when there are none.
 */
export function ftsMatch(words: readonly QueryWord[]): string | null {
  if (words.length === 0) return null;
  return words.map((word) => ftsPhrase(word.raw, word.prefix === true)).join(" AND ");
}
