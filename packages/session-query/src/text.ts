/**
 * Searchable text: what of an event is indexed, how query words are cut into tokens, how matches
 * are found in a text and turned into a highlighted snippet. Shared by both backends so that they
 * agree on what matches; the SQLite backend lets FTS5 find candidates and uses this for snippets.
 *
 * Tokens follow FTS5's `unicode61 remove_diacritics 2`: runs of letters and digits, lowercased,
 * accents removed. Each CJK character is a token of its own (the index puts spaces around them),
 * so a CJK word matches as a substring; Latin words match whole, except a word marked `prefix`
 * (the last word of a search-as-you-type query), whose last token matches any token it begins.
 */
import type { SessionEvent } from "@tapedeck/session";
import type { PrefixMatching } from "./query-engine";

const cjkPattern = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const cjkChar = new RegExp(`[${cjkPattern}]`, "u");
const cjkGlobal = new RegExp(`[${cjkPattern}]`, "gu");
const tokenChar = /[\p{L}\p{N}\p{Co}]/u;
const markChar = /\p{M}/u;

/** The indexed text of an event: message content, tool name + arguments, outputs, summaries. */
export function eventText(event: SessionEvent): string {
  switch (event.type) {
    case "message":
      return event.content;
    case "function_call":
      return `${event.name} ${event.arguments}`;
    case "function_call_output":
      return event.output;
    case "compaction":
      return event.summary;
    case "goal/set":
      return event.goal ?? "";
    case "error":
      return event.message;
    default: {
      // Extension events (imported reasoning, unknown source entries) are searchable by their
      // `text` field; they never reach a model.
      const text: unknown = (event as { text?: unknown }).text;
      return typeof text === "string" ? text : "";
    }
  }
}

/** True when the character is Chinese, Japanese or Korean script. */
export function isCjk(char: string): boolean {
  return cjkChar.test(char);
}

/** `text` with a space around every CJK character, so each one is a token for FTS5. */
export function spaceCjk(text: string): string {
  return text.replace(cjkGlobal, " $& ");
}

/** A word of the user's query: the tokens it consists of, folded. */
export interface QueryWord {
  /** The word as the user typed it. */
  raw: string;
  tokens: string[];
  /**
   * True when the word's last token matches as a prefix (`compa` finds `compaction`). Only ever
   * set on the last word of a query, when its last token is Latin (not CJK) and at least
   * {@link MIN_PREFIX_LENGTH} characters long.
   */
  prefix?: boolean;
}

/**
 * Shortest last token (in characters, after folding) that matches as a prefix. A shorter one
 * matches whole, as with `prefix: "none"`: a single letter would match most of the index.
 */
export const MIN_PREFIX_LENGTH = 2;

/**
 * A folded copy of a text and, for each folded character, its index in the original (`null`:
 * the same index, as for ASCII text, which folds by lowercasing alone).
 */
interface Folded {
  text: string;
  origin: number[] | null;
}

function foldChar(char: string): string {
  if (isCjk(char)) return char;
  let folded = "";
  for (const part of char.normalize("NFD")) if (!markChar.test(part)) folded += part;
  return folded.toLowerCase();
}

const nonAscii = /[\u0080-\uffff]/;

// A regex test rather than a loop over char codes: searches run this on every hit's text, often
// in a process too short-lived for the JIT to optimise a JavaScript loop.
function isAscii(text: string): boolean {
  return !nonAscii.test(text);
}

/** Lowercases and removes accents, keeping a map back to the original positions. */
function fold(text: string): Folded {
  // ASCII folds to its lowercase, position for position: no map needed.
  if (isAscii(text)) return { text: text.toLowerCase(), origin: null };
  let folded = "";
  const origin: number[] = [];
  let index = 0;
  for (const char of text) {
    const unit = char.charCodeAt(0) < 128 ? char.toLowerCase() : foldChar(char);
    for (let part = 0; part < unit.length; part += 1) origin.push(index);
    folded += unit;
    index += char.length;
  }
  return { text: folded, origin };
}

/** Splits folded text into tokens the way the FTS tokenizer does. */
function tokenize(folded: string): string[] {
  const tokens: string[] = [];
  let current = "";
  for (const char of folded) {
    if (isCjk(char)) {
      if (current !== "") tokens.push(current);
      current = "";
      tokens.push(char);
    } else if (tokenChar.test(char)) {
      current += char;
    } else {
      if (current !== "") tokens.push(current);
      current = "";
    }
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

/**
 * The tokens of a text in order, as matching sees them (folded; each CJK character one token).
 * The PostgreSQL backend builds its `tsvector`s from these, so both agree on what a word is.
 */
export function textTokens(text: string): string[] {
  // ASCII text (most of it: code, logs, English) folds to lowercase and its tokens are the runs
  // of [a-z0-9]: a regex does in one pass what the general path does character by character.
  if (isAscii(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return tokenize(fold(text).text);
}

/**
 * The words of raw user text (split on whitespace), each with its tokens. Words without any
 * letter or digit (`(`, `"`, `--`) are dropped: there is nothing in them to find. With
 * `prefix: "last"` the last word is marked `prefix` when its last token is Latin and at least
 * {@link MIN_PREFIX_LENGTH} characters long.
 */
export function queryWords(text: string, prefix: PrefixMatching = "none"): QueryWord[] {
  const words: QueryWord[] = [];
  for (const raw of text.split(/\s+/u)) {
    if (raw === "") continue;
    const tokens = tokenize(fold(raw).text);
    if (tokens.length > 0) words.push({ raw, tokens });
  }
  const last = words[words.length - 1];
  if (prefix === "last" && last !== undefined) {
    const token = last.tokens[last.tokens.length - 1]!;
    if (!isCjk(token) && [...token].length >= MIN_PREFIX_LENGTH) last.prefix = true;
  }
  return words;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && tokenChar.test(char) && !isCjk(char);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const patternCache = new Map<string, RegExp>();

/** The rest of a token a prefix begins: letters and digits, but not CJK (each is its own token). */
const tokenRest = `(?:(?![${cjkPattern}])[\\p{L}\\p{N}\\p{Co}])*`;

/**
 * A regex for one word: its tokens in order, with separators between (none needed around CJK).
 * For a prefix word the last token runs on to the end of the token it begins.
 */
function wordPattern(word: QueryWord): RegExp {
  const key = `${word.prefix === true ? "*" : ""}${word.tokens.join("\u0000")}`;
  const cached = patternCache.get(key);
  if (cached !== undefined) return cached;
  let source = "";
  word.tokens.forEach((token, index) => {
    if (index > 0) {
      const previous = word.tokens[index - 1]!;
      source +=
        isCjk(previous) || isCjk(token) ? "[^\\p{L}\\p{N}\\p{Co}]*" : "[^\\p{L}\\p{N}\\p{Co}]+";
    }
    source += escapeRegExp(token);
  });
  if (word.prefix === true) source += tokenRest;
  const pattern = new RegExp(source, "gu");
  if (patternCache.size > 1000) patternCache.clear();
  patternCache.set(key, pattern);
  return pattern;
}

/** A match in the original text: `[start, end)` in UTF-16 units. */
export interface MatchRange {
  start: number;
  end: number;
}

/**
 * Counts the matches of `word` in the folded text; with `ranges`, also records each in original
 * positions. Stops at the first match that starts at or after `stopAt` (a position in the
 * original text), uncounted.
 */
function findWord(
  folded: Folded,
  word: QueryWord,
  ranges: MatchRange[] | null,
  stopAt = Number.POSITIVE_INFINITY,
): number {
  const pattern = wordPattern(word);
  pattern.lastIndex = 0;
  const { text, origin } = folded;
  const firstIsCjk = isCjk(word.tokens[0]!);
  const lastIsCjk = isCjk(word.tokens[word.tokens.length - 1]!);
  let count = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    const before = start > 0 ? text[start - 1] : undefined;
    const after = text[end];
    if ((!firstIsCjk && isWordChar(before)) || (!lastIsCjk && isWordChar(after))) {
      pattern.lastIndex = start + 1;
      continue;
    }
    const originStart = origin === null ? start : origin[start]!;
    if (originStart >= stopAt) break;
    count += 1;
    if (ranges !== null) {
      const length = origin === null ? text.length : origin.length;
      const originEnd =
        end >= length ? Number.POSITIVE_INFINITY : origin === null ? end : origin[end]!;
      ranges.push({ start: originStart, end: originEnd });
    }
  }
  return count;
}

/** A text prepared for repeated matching. */
export interface MatchableText {
  readonly original: string;
  readonly folded: Folded;
}

/** Prepares `text` for {@link countMatches} and {@link snippet}. */
export function matchable(text: string): MatchableText {
  return { original: text, folded: fold(text) };
}

/**
 * How often each word occurs in the text (whole tokens, or token prefixes for a `prefix` word;
 * CJK as substrings), or `null` when a word
 * is missing (every word must occur).
 */
export function countMatches(text: MatchableText, words: readonly QueryWord[]): number[] | null {
  const counts: number[] = [];
  for (const word of words) {
    const count = findWord(text.folded, word, null);
    if (count === 0) return null;
    counts.push(count);
  }
  return counts;
}

/** Default highlight markers. */
export const defaultMarkers = { open: "«", close: "»" } as const;

const snippetLength = 160;

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
  if (words.length > 0) {
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
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
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
  out = out.replace(/\s+/gu, " ").trim();
  return `${start > 0 ? "…" : ""}${out}${end < text.length ? "…" : ""}`;
}
