/**
 * Turns raw user text into an FTS5 MATCH expression that can never be a syntax error: each word
 * becomes one quoted phrase (quotes doubled), CJK characters spaced out as at index time so that
 * a Chinese word is a phrase of single-character tokens (substring search). Phrases are ANDed.
 * Operators typed by the user (`OR`, `NOT`, `NEAR`, `*`, `:`, `(`) are searched as text.
 */
import { type QueryWord, queryWords, spaceCjk } from "./text";

/** The FTS5 phrase of one word: `"…"` with inner quotes doubled and CJK spaced. */
export function ftsPhrase(word: string): string {
  return `"${spaceCjk(word).trim().replace(/\s+/gu, " ").replaceAll('"', '""')}"`;
}

/** The MATCH expression for user text, or `null` when it holds nothing searchable. */
export function toFtsQuery(text: string): { match: string; words: QueryWord[] } | null {
  const words = queryWords(text);
  if (words.length === 0) return null;
  return { match: words.map((word) => ftsPhrase(word.raw)).join(" AND "), words };
}
