/**
 * A hit's snippet: up to ~160 characters of its text around the first match, matches wrapped in
 * highlight markers, matched with the rules of `text.ts`. Every search result cuts one per hit,
 * so the common case (one ASCII word in ASCII text) has its own path.
 */
import { findWord, fold, isAscii, type MatchRange, type QueryWord } from "./text";

/**
 * {@link findWord} for the common case, a one-token word without prefix matching in ASCII text
 * (folded: lowercased, positions unchanged): the same ranges up to `snippetLength` after the
 * first, in far fewer steps (a search snippets 20 hits, each often in a process whose code is
 * not optimised yet).
 */
function findAsciiToken(lower: string, token: string, ranges: MatchRange[]): void {
  let stopAt = Number.POSITIVE_INFINITY;
  let from = 0;
  for (let start = lower.indexOf(token); start >= 0; start = lower.indexOf(token, from)) {
    const end = start + token.length;
    if (isWordCode(lower.charCodeAt(start - 1)) || isWordCode(lower.charCodeAt(end))) {
      from = start + 1;
      continue;
    }
    if (start >= stopAt) break;
    ranges.push({ start, end: end >= lower.length ? Number.POSITIVE_INFINITY : end });
    stopAt = Math.min(stopAt, start + snippetLength);
    from = end;
  }
}

/** An ASCII letter or digit's code (`NaN`, past either end of a text, is none). */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
}

/** Default highlight markers. */
export const defaultMarkers = { open: "«", close: "»" } as const;

const snippetLength = 160;

/** Whitespace that `\s+ → " "` changes: two in a row, or one that is not a space. */
const collapsible = /\s\s|(?! )\s/;

/**
 * Up to ~160 characters of `text` around the first match, every match wrapped in the markers,
 * whitespace collapsed, `…` where text was cut. Without words: the start of the text.
 */
export function snippet(
  text: string,
  words: readonly QueryWord[],
  markers: { open: string; close: string } = defaultMarkers,
): string {
  if (text === "") return "";
  const ranges: MatchRange[] = [];
  const only = words.length === 1 ? words[0]! : undefined;
  if (only !== undefined && only.tokens.length === 1 && only.prefix !== true && isAscii(text)) {
    findAsciiToken(text.toLowerCase(), only.tokens[0]!, ranges);
  } else if (words.length > 0) {
    const folded = fold(text);
    // The snippet ends at most `snippetLength` after the earliest match, so later matches are
    // never shown: each word is searched only up to there (a long tool output is not scanned
    // to its end once the window is known).
    let earliest = Number.POSITIVE_INFINITY;
    for (const word of words) {
      const found = ranges.length;
      findWord(folded, word, ranges, earliest + snippetLength);
      if (ranges.length > found) earliest = Math.min(earliest, ranges[found]!.start);
    }
  }
  if (ranges.length > 1) ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const first = ranges[0];
  let start = first === undefined ? 0 : Math.max(0, first.start - 50);
  if (start > 0) {
    const space = text.lastIndexOf(" ", first!.start);
    if (space >= start && space - start < 20) start = space + 1;
  }
  const end = Math.min(text.length, start + snippetLength);
  let out = "";
  let position = start;
  for (const range of ranges) {
    const rangeEnd = Math.min(range.end, text.length);
    if (range.start < position || range.start >= end) continue;
    out += text.slice(position, range.start);
    out += markers.open + text.slice(range.start, Math.min(rangeEnd, end)) + markers.close;
    position = Math.min(rangeEnd, end);
  }
  out += text.slice(position, end);
  // No `u` flag: whitespace is all in the BMP, and the non-Unicode regex is the cheaper one.
  // Replaced only where there is something to collapse (a run, or a tab or newline): the
  // replace builds its result through a list of matches, ≈ 2 KB for a snippet of prose.
  if (collapsible.test(out)) out = out.replace(/\s+/g, " ");
  out = out.trim();
  return `${start > 0 ? "…" : ""}${out}${end < text.length ? "…" : ""}`;
}
