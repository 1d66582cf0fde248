/**
 * Full text on PostgreSQL without its parser: the `tsvector` of a text is built here from the
 * same tokens the in-memory matcher uses (`textTokens`: folded, accents removed, each CJK
 * character a token of its own), with positions, and a query becomes a `tsquery` of phrases
 * (`'数' <-> '据'`, `'multi' <-> 'agent'`) and, for the last word of a search-as-you-type query,
 * a prefix (`'compa':*`). Both are literals cast by the server (`$1::tsvector`), so no dictionary,
 * stop word or locale changes what matches, and user text can never be a tsquery syntax error.
 * See architecture/team-index.md for the measurements behind this choice.
 *
 * PostgreSQL's limits, applied here rather than left to fail a push: positions above 16,383 are
 * stored as 16,383 (phrases deep into very long outputs may be missed), at most 256 positions are
 * kept per lexeme, tokens over 500 characters are not indexed, and a text whose vector would pass
 * ~1 MB keeps its lexemes without positions.
 */
import type { QueryWord } from "../text";
import { textTokens } from "../text";

/** Largest position PostgreSQL stores in a tsvector. */
const maxPosition = 16_383;
/** Positions PostgreSQL keeps per lexeme. */
const maxPositionsPerLexeme = 256;
/** Tokens longer than this (base64 blobs, hashes run together) are not indexed. */
const maxTokenLength = 500;
/** Stay well under PostgreSQL's 1 MB tsvector limit. */
const maxVectorBytes = 900_000;

function quote(lexeme: string): string {
  return `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** The tsvector literal of a text, or `null` when it has no token. */
export function toTsvector(text: string): string | null {
  if (text === "") return null;
  const tokens = textTokens(text);
  if (tokens.length === 0) return null;
  const positions = new Map<string, number[]>();
  tokens.forEach((token, index) => {
    if (token.length > maxTokenLength) return;
    const position = Math.min(index + 1, maxPosition);
    const list = positions.get(token);
    if (list === undefined) positions.set(token, [position]);
    else if (list.length < maxPositionsPerLexeme && list[list.length - 1] !== position) {
      list.push(position);
    }
  });
  if (positions.size === 0) return null;
  let bytes = 0;
  let lexemeBytes = 0;
  for (const [lexeme, list] of positions) {
    const size = Buffer.byteLength(lexeme) + 8;
    lexemeBytes += size;
    bytes += size + 2 * list.length;
  }
  const parts: string[] = [];
  if (bytes <= maxVectorBytes) {
    for (const [lexeme, list] of positions) parts.push(`${quote(lexeme)}:${list.join(",")}`);
  } else {
    let kept = 0;
    for (const lexeme of positions.keys()) {
      kept += Buffer.byteLength(lexeme) + 8;
      if (lexemeBytes > maxVectorBytes && kept > maxVectorBytes) break;
      parts.push(quote(lexeme));
    }
  }
  return parts.join(" ");
}

/**
 * The tsquery literal matching every word (AND): a word's tokens must follow each other (a
 * phrase); a `prefix` word's last token matches as a prefix. `null` when there are no words.
 */
export function toTsquery(words: readonly QueryWord[]): string | null {
  if (words.length === 0) return null;
  return words
    .map((word) => {
      const last = word.tokens.length - 1;
      const phrase = word.tokens
        .map((token, index) =>
          index === last && word.prefix === true ? `${quote(token)}:*` : quote(token),
        )
        .join(" <-> ");
      return `(${phrase})`;
    })
    .join(" & ");
}
