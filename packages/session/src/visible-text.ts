/**
 * Untrusted text (a model's tool call, a log, a repository file) made safe to show to a person who
 * decides something from it. Every character that a terminal or a browser would hide, act upon or
 * reorder is replaced by a visible escape, and the caller learns that it happened so it can flag
 * it ("contains hidden characters"). Nothing is cut: the visible form holds every character.
 *
 * Made visible:
 * - C0 controls (U+0000–001F, ESC included), DEL and C1 controls (U+0080–009F): `\r`, `\t`, `\n`,
 *   `\e` (ESC), else `\x1f` style;
 * - bidirectional controls (U+061C, U+200E–200F, U+202A–202E, U+2066–2069), zero-width and other
 *   invisible format characters (Unicode category Cf: U+200B–200D, U+2060–2064, U+FEFF, U+00AD,
 *   tag characters U+E0000–E007F, …), line and paragraph separators (U+2028, U+2029), Hangul
 *   fillers, supplementary variation selectors (U+E0100–E01EF) and lone surrogates: `\u{202E}`.
 *
 * Pure and browser-safe (no Node imports): the CLI, the ACP agent and the viewer share it.
 */

/** One run of the visible form: plain text, or one hidden character shown as an escape. */
export type VisibleSegment =
  | { kind: "text"; text: string }
  | {
      kind: "hidden";
      /** The visible escape shown in its place, e.g. `\e`, `\r`, `\u{202E}`. */
      text: string;
      /** The code point (for a lone surrogate, the code unit). */
      codePoint: number;
      /** A short human name, e.g. "ESC (escape)", "RLO (right-to-left override)". */
      name: string;
    };

/** The result of {@link toVisibleText}. */
export interface VisibleText {
  /** The whole text with every hidden character replaced by its escape. */
  text: string;
  /** How many characters were made visible; `0` means the text is shown exactly as it is. */
  hiddenCount: number;
  /** The same text cut into plain runs and escapes, for a UI that styles the escapes. */
  segments: VisibleSegment[];
}

/** Options of {@link toVisibleText}. */
export interface VisibleTextOptions {
  /**
   * Keep `\n` (and `\t`) as they are, for multi-line blocks such as tool outputs. Default `false`:
   * a single-line title or approval shows them as `\n` and `\t` (and counts them as hidden, since
   * a newline can push the rest of a command out of a one-line prompt).
   */
  keepLineBreaks?: boolean;
}

/** The flag shown next to text that held hidden characters. */
export const HIDDEN_CHARACTERS_WARNING = "contains hidden characters";

const names = new Map<number, string>([
  [0x00, "NUL"],
  [0x07, "BEL (bell)"],
  [0x08, "BS (backspace)"],
  [0x09, "TAB"],
  [0x0a, "LF (line feed)"],
  [0x0b, "VT (vertical tab)"],
  [0x0c, "FF (form feed)"],
  [0x0d, "CR (carriage return)"],
  [0x1b, "ESC (escape)"],
  [0x7f, "DEL"],
  [0x9b, "CSI (control sequence introducer)"],
  [0xad, "SHY (soft hyphen)"],
  [0x061c, "ALM (Arabic letter mark)"],
  [0x200b, "ZWSP (zero-width space)"],
  [0x200c, "ZWNJ (zero-width non-joiner)"],
  [0x200d, "ZWJ (zero-width joiner)"],
  [0x200e, "LRM (left-to-right mark)"],
  [0x200f, "RLM (right-to-left mark)"],
  [0x2028, "LS (line separator)"],
  [0x2029, "PS (paragraph separator)"],
  [0x202a, "LRE (left-to-right embedding)"],
  [0x202b, "RLE (right-to-left embedding)"],
  [0x202c, "PDF (pop directional formatting)"],
  [0x202d, "LRO (left-to-right override)"],
  [0x202e, "RLO (right-to-left override)"],
  [0x2060, "WJ (word joiner)"],
  [0x2066, "LRI (left-to-right isolate)"],
  [0x2067, "RLI (right-to-left isolate)"],
  [0x2068, "FSI (first strong isolate)"],
  [0x2069, "PDI (pop directional isolate)"],
  [0xfeff, "BOM (zero-width no-break space)"],
]);

const shortEscapes = new Map<number, string>([
  [0x09, "\\t"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x1b, "\\e"],
]);

// One alternation, tried per code point ("u" flag): controls, format characters (bidi, zero-width,
// tags), separators, fillers, supplementary variation selectors and lone surrogates.
const hiddenPattern =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is matched alone on purpose (a variation selector by itself is hidden).
  /[\p{Cc}\p{Cf}\u2028\u2029\u{e0100}-\u{e01ef}]|\u115f|\u1160|\u3164|\uffa0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

function hex(codePoint: number): string {
  return codePoint
    .toString(16)
    .toUpperCase()
    .padStart(codePoint > 0x9f ? 4 : 2, "0");
}

function escapeOf(codePoint: number): string {
  const short = shortEscapes.get(codePoint);
  if (short !== undefined) return short;
  if (codePoint <= 0x9f) return `\\x${hex(codePoint).toLowerCase()}`;
  return `\\u{${hex(codePoint)}}`;
}

function nameOf(codePoint: number): string {
  const known = names.get(codePoint);
  if (known !== undefined) return known;
  if (codePoint < 0x20 || (codePoint >= 0x80 && codePoint <= 0x9f)) return "control character";
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return "tag character";
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return "lone surrogate";
  return "invisible character";
}

/**
 * Returns `text` with every control, escape, bidirectional and invisible character replaced by a
 * visible escape (`\e`, `\r`, `\x07`, `\u{202E}`), how many there were, and the same as segments.
 * Nothing is shortened. Printable text, including non-Latin scripts and emoji, is left as is.
 */
export function toVisibleText(text: string, options: VisibleTextOptions = {}): VisibleText {
  const segments: VisibleSegment[] = [];
  let visible = "";
  let hiddenCount = 0;
  let last = 0;
  for (const match of text.matchAll(hiddenPattern)) {
    const index = match.index;
    const character = match[0];
    const codePoint = character.codePointAt(0) ?? 0;
    if (options.keepLineBreaks === true && (codePoint === 0x0a || codePoint === 0x09)) continue;
    if (index > last) {
      const plain = text.slice(last, index);
      segments.push({ kind: "text", text: plain });
      visible += plain;
    }
    const shown = escapeOf(codePoint);
    segments.push({ kind: "hidden", text: shown, codePoint, name: nameOf(codePoint) });
    visible += shown;
    hiddenCount += 1;
    last = index + character.length;
  }
  if (last === 0 && hiddenCount === 0) {
    return { text, hiddenCount: 0, segments: text === "" ? [] : [{ kind: "text", text }] };
  }
  if (last < text.length) {
    const plain = text.slice(last);
    segments.push({ kind: "text", text: plain });
    visible += plain;
  }
  return { text: visible, hiddenCount, segments: mergeText(segments) };
}

// Skipped line breaks leave adjacent text runs; one run reads better in a UI.
function mergeText(segments: VisibleSegment[]): VisibleSegment[] {
  const merged: VisibleSegment[] = [];
  for (const segment of segments) {
    const previous = merged.at(-1);
    if (segment.kind === "text" && previous?.kind === "text") previous.text += segment.text;
    else merged.push(segment);
  }
  return merged;
}

/** True when {@link toVisibleText} would change `text` (it holds a hidden character). */
export function hasHiddenCharacters(text: string, options: VisibleTextOptions = {}): boolean {
  return toVisibleText(text, options).hiddenCount > 0;
}

/**
 * The one-line form a person approves: the whole text made visible, followed by
 * ` [contains hidden characters]` when anything was hidden. Never cut.
 */
export function approvalText(text: string): string {
  const visible = toVisibleText(text);
  return visible.hiddenCount > 0 ? `${visible.text} [${HIDDEN_CHARACTERS_WARNING}]` : visible.text;
}
