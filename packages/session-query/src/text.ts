/**
 * Searchable text: what of an event is indexed, how query words are cut into tokens, how matches
 * are found in a text (a hit's snippet is cut in `snippet.ts`). Shared by the backends so that
 * they agree on what matches; the SQLite backend lets FTS5 find candidates and uses this for
 * snippets.
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

/** Folded forms of the characters `foldChar` met so far (accented letters, punctuation, emoji). */
const foldedChars = new Map<string, string>();

/**
 * The fold of a character that is neither ASCII nor CJK (`foldableChar`): decomposed, marks
 * dropped, lowercased.
 */
function foldChar(char: string): string {
  const known = foldedChars.get(char);
  if (known !== undefined) return known;
  let folded = "";
  for (const part of char.normalize("NFD")) if (!markChar.test(part)) folded += part;
  folded = folded.toLowerCase();
  if (foldedChars.size >= 20_000) foldedChars.clear();
  foldedChars.set(char, folded);
  return folded;
}

const nonAscii = /[\u0080-\uffff]/;

/**
 * True when the text is all ASCII. A regex test rather than a loop over char codes: searches run
 * this on every hit's text, often in a process too short-lived for the JIT to optimise a loop.
 */
export function isAscii(text: string): boolean {
  return !nonAscii.test(text);
}

/**
 * A character folding may change beyond lowercasing: neither ASCII (lowercased) nor CJK (kept as
 * it is). Only these are folded one by one; the runs between them are lowercased as slices.
 */
const foldableChar = new RegExp(`[^\\u0000-\\u007f${cjkPattern}]`, "gu");

/**
 * Lowercases and removes accents, keeping a map back to the original positions (exported for
 * its tests). Runs of ASCII and CJK are lowercased as slices: a text with one accented letter or
 * emoji no longer goes character by character (a string per character, a concatenation each:
 * 6× the time of an ASCII text of the same length).
 */
export function fold(text: string): Folded {
  // ASCII folds to its lowercase, position for position: no map needed.
  if (isAscii(text)) return { text: text.toLowerCase(), origin: null };
  let folded = "";
  const origin: number[] = [];
  let at = 0;
  foldableChar.lastIndex = 0;
  for (let match = foldableChar.exec(text); match !== null; match = foldableChar.exec(text)) {
    const index = match.index;
    if (index > at) {
      folded += text.slice(at, index).toLowerCase();
      pushRunOrigin(origin, text, at, index);
    }
    const char = match[0];
    const unit = foldChar(char);
    for (let part = 0; part < unit.length; part += 1) origin.push(index);
    folded += unit;
    at = index + char.length;
  }
  if (at < text.length) {
    folded += text.slice(at).toLowerCase();
    pushRunOrigin(origin, text, at, text.length);
  }
  return { text: folded, origin };
}

/**
 * The origins of a run of ASCII and CJK, which folds unit for unit: each unit's own index, the
 * second unit of a surrogate pair (a CJK character outside the BMP) its pair's.
 */
function pushRunOrigin(origin: number[], text: string, from: number, to: number): void {
  for (let index = from; index < to; index += 1) {
    const code = text.charCodeAt(index);
    const low = code >= 0xdc00 && code <= 0xdfff && index > from;
    const high = low ? text.charCodeAt(index - 1) : 0;
    origin.push(low && high >= 0xd800 && high <= 0xdbff ? index - 1 : index);
  }
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
 * Text that is one word of ASCII letters and digits: one token, no CJK, nothing to quote (a
 * search's common case, answered without splitting, folding or tokenizing).
 */
export const simpleWord = /^[A-Za-z0-9]+$/;

/**
 * The words of raw user text (split on whitespace), each with its tokens. Words without any
 * letter or digit (`(`, `"`, `--`) are dropped: there is nothing in them to find. With
 * `prefix: "last"` the last word is marked `prefix` when its last token is Latin and at least
 * {@link MIN_PREFIX_LENGTH} characters long.
 */
export function queryWords(text: string, prefix: PrefixMatching = "none"): QueryWord[] {
  // One word of ASCII letters and digits (most searches): it is its own only token.
  if (simpleWord.test(text)) {
    const word: QueryWord = { raw: text, tokens: [text.toLowerCase()] };
    if (prefix === "last" && text.length >= MIN_PREFIX_LENGTH) word.prefix = true;
    return [word];
  }
  const words: QueryWord[] = [];
  for (const raw of text.split(/\s+/u)) {
    if (raw === "") continue;
    const tokens = textTokens(raw);
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
  if (char === undefined) return false;
  const code = char.charCodeAt(0);
  // ASCII without the Unicode class: a search over ASCII text never needs it.
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
  return tokenChar.test(char) && !isCjk(char);
}

/**
 * The run of separators (anything but letters, digits and private-use characters) at
 * `lastIndex`, and the run of a prefix's remaining letters and digits (not CJK: each is its own
 * token). Built once per process and shared by every word: a regex per word holding these
 * Unicode classes cost 2–6 ms to compile for each Chinese word (twice: V8 interprets a regex
 * first and compiles it to machine code on its second run).
 */
const separatorRun = /[^\p{L}\p{N}\p{Co}]*/uy;
const tokenRestRun = new RegExp(`(?:(?![${cjkPattern}])[\\p{L}\\p{N}\\p{Co}])*`, "uy");

/** Where a sticky regex's run starting at `index` ends. */
function runEnd(run: RegExp, text: string, index: number): number {
  run.lastIndex = index;
  run.exec(text);
  return run.lastIndex;
}

/**
 * Where `word` ends when matched at `start` of the folded text, or -1: its tokens in order,
 * separators between them (at least one between two Latin tokens, any number next to CJK), a
 * prefix word's last token running on to the end of the token it begins. Separators are greedy
 * and give back characters one by one when the next token does not follow, as a regex's `*`.
 */
function matchWord(text: string, word: QueryWord, start: number): number {
  return matchTokens(text, word, 0, start);
}

/** {@link matchWord} from token `index` of the word at `at` (a function, not a closure per call). */
function matchTokens(text: string, word: QueryWord, index: number, at: number): number {
  const token = word.tokens[index]!;
  if (!text.startsWith(token, at)) return -1;
  const end = at + token.length;
  const next = word.tokens[index + 1];
  if (next === undefined) return word.prefix === true ? runEnd(tokenRestRun, text, end) : end;
  const loose = isCjk(token) || isCjk(next);
  let from = runEnd(separatorRun, text, end);
  // Shortest separator allowed: none next to CJK, else one character (a surrogate pair is one).
  const code = text.charCodeAt(end);
  const least = loose ? end : end + (code >= 0xd800 && code <= 0xdbff ? 2 : 1);
  while (from >= least) {
    const found = matchTokens(text, word, index + 1, from);
    if (found >= 0) return found;
    if (from === end) break;
    const low = text.charCodeAt(from - 1);
    const high = text.charCodeAt(from - 2);
    from -=
      low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff && from - 2 >= end ? 2 : 1;
  }
  return -1;
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
export function findWord(
  folded: Folded,
  word: QueryWord,
  ranges: MatchRange[] | null,
  stopAt = Number.POSITIVE_INFINITY,
): number {
  const { text, origin } = folded;
  const first = word.tokens[0]!;
  const firstIsCjk = isCjk(first);
  const lastIsCjk = isCjk(word.tokens[word.tokens.length - 1]!);
  let count = 0;
  let from = 0;
  for (let start = text.indexOf(first, from); start >= 0; start = text.indexOf(first, from)) {
    const end = matchWord(text, word, start);
    if (end < 0) {
      from = start + 1;
      continue;
    }
    const before = start > 0 ? text[start - 1] : undefined;
    const after = text[end];
    if ((!firstIsCjk && isWordChar(before)) || (!lastIsCjk && isWordChar(after))) {
      from = start + 1;
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
    from = end;
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
