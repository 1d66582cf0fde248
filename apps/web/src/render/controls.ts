/**
 * Untrusted text made safe to look at: bidirectional overrides and isolates, zero-width and other
 * invisible format characters, and C0/C1 control characters become visible marks instead of
 * reordering or hiding what is shown; ANSI SGR colour sequences become styled runs and every
 * other escape sequence is removed. Pure (no DOM), shared by the page and the HTML export.
 */

/** A run of text: plain, or one invisible/control character shown as a mark. */
export type TextSegment =
  | { kind: "text"; text: string }
  | { kind: "mark"; text: string; title: string; bidi: boolean };

const NAMES: Record<number, string> = {
  1564: "ALM ARABIC LETTER MARK",
  8203: "ZWSP ZERO WIDTH SPACE",
  8204: "ZWNJ ZERO WIDTH NON-JOINER",
  8205: "ZWJ ZERO WIDTH JOINER",
  8206: "LRM LEFT-TO-RIGHT MARK",
  8207: "RLM RIGHT-TO-LEFT MARK",
  8232: "LSEP LINE SEPARATOR",
  8233: "PSEP PARAGRAPH SEPARATOR",
  8234: "LRE LEFT-TO-RIGHT EMBEDDING",
  8235: "RLE RIGHT-TO-LEFT EMBEDDING",
  8236: "PDF POP DIRECTIONAL FORMATTING",
  8237: "LRO LEFT-TO-RIGHT OVERRIDE",
  8238: "RLO RIGHT-TO-LEFT OVERRIDE",
  8288: "WJ WORD JOINER",
  8294: "LRI LEFT-TO-RIGHT ISOLATE",
  8295: "RLI RIGHT-TO-LEFT ISOLATE",
  8296: "FSI FIRST STRONG ISOLATE",
  8297: "PDI POP DIRECTIONAL ISOLATE",
  65279: "BOM ZERO WIDTH NO-BREAK SPACE",
};

/** The characters that are never shown as themselves (newline and tab are kept). */
const HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;

/** True for the bidirectional override and isolate characters (U+202A–202E, U+2066–2069). */
export function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

function hex(code: number, width: number): string {
  return code.toString(16).toUpperCase().padStart(width, "0");
}

/** The visible mark for one hidden character: `⟨RLO⟩` for format characters, `\x07` for controls. */
export function markFor(character: string): { text: string; title: string } {
  const code = character.codePointAt(0) ?? 0;
  const name = NAMES[code];
  if (name !== undefined) {
    const [short = "", ...rest] = name.split(" ");
    return { text: `⟨${short}⟩`, title: `U+${hex(code, 4)} ${rest.join(" ")}` };
  }
  if (code === 0x0d) return { text: "\\r", title: "U+000D CARRIAGE RETURN" };
  return { text: `\\x${hex(code, 2)}`, title: `U+${hex(code, 4)} control character` };
}

/** True when `text` holds any character {@link splitControls} would show as a mark. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  return HIDDEN.test(text.replace(/\r\n/g, "\n"));
}

/**
 * Splits text into plain runs and marks. A `\r` right before `\n` (Windows line ending) is dropped;
 * any other hidden character becomes a mark.
 */
export function splitControls(text: string): TextSegment[] {
  const source = text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
  const segments: TextSegment[] = [];
  let last = 0;
  HIDDEN.lastIndex = 0;
  for (let match = HIDDEN.exec(source); match !== null; match = HIDDEN.exec(source)) {
    if (match.index > last) segments.push({ kind: "text", text: source.slice(last, match.index) });
    const mark = markFor(match[0]);
    segments.push({
      kind: "mark",
      ...mark,
      bidi: isBidiControl(match[0].codePointAt(0) ?? 0),
    });
    last = match.index + match[0].length;
  }
  if (last < source.length) segments.push({ kind: "text", text: source.slice(last) });
  return segments;
}

/** The text with every hidden character replaced by its mark, as one string (titles, previews). */
export function visibleText(text: string): string {
  return splitControls(text)
    .map((segment) => segment.text)
    .join("");
}

/** Styling of one ANSI run: CSS class names (`ansi-fg-1`, `ansi-bold`, …). */
export interface AnsiRun {
  text: string;
  classes: string[];
}

interface AnsiState {
  fg: number | null;
  bg: number | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
}

const plain = (): AnsiState => ({
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
});

function classesOf(state: AnsiState): string[] {
  const classes: string[] = [];
  if (state.fg !== null) classes.push(`ansi-fg-${state.fg}`);
  if (state.bg !== null) classes.push(`ansi-bg-${state.bg}`);
  if (state.bold) classes.push("ansi-bold");
  if (state.dim) classes.push("ansi-dim");
  if (state.italic) classes.push("ansi-italic");
  if (state.underline) classes.push("ansi-underline");
  return classes;
}

function applySgr(state: AnsiState, parameters: string): AnsiState {
  const codes = parameters === "" ? [0] : parameters.split(";").map((part) => Number(part) || 0);
  let next = { ...state };
  for (let index = 0; index < codes.length; index++) {
    const code = codes[index] ?? 0;
    if (code === 0) next = plain();
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code === 39) next.fg = null;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if (code === 49) next.bg = null;
    else if (code === 38 || code === 48) {
      // 256-colour (5;n) and true-colour (2;r;g;b): the first 16 map to the palette, the rest
      // are dropped (the text stays, uncoloured).
      const mode = codes[index + 1];
      const value = codes[index + 2] ?? 0;
      if (mode === 5 && value < 16) {
        if (code === 38) next.fg = value;
        else next.bg = value;
      }
      index += mode === 5 ? 2 : mode === 2 ? 4 : 1;
    }
  }
  return next;
}

/** CSI (`ESC [ … final`) and OSC (`ESC ] … BEL` or `ESC ] … ESC \`) sequences, and charset picks. */
const ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC
  /\u001B\[([0-9;?]*)[ -/]*([@-~])|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)|\u001B[()][0-9A-Za-z]/g;

/** True when the text contains an ANSI escape sequence. */
export function hasAnsi(text: string): boolean {
  return text.includes("\u001B[") || text.includes("\u001B]");
}

/**
 * Splits terminal output into styled runs: SGR sequences (`ESC[…m`) set colours and weight, every
 * other escape sequence (cursor moves, erases, OSC titles and hyperlinks) is removed. A lone ESC
 * stays in the text, to be shown as a mark.
 */
export function parseAnsi(text: string): AnsiRun[] {
  const runs: AnsiRun[] = [];
  let state = plain();
  let last = 0;
  ESCAPE.lastIndex = 0;
  for (let match = ESCAPE.exec(text); match !== null; match = ESCAPE.exec(text)) {
    if (match.index > last)
      runs.push({ text: text.slice(last, match.index), classes: classesOf(state) });
    if (match[2] === "m") state = applySgr(state, match[1] ?? "");
    last = match.index + match[0].length;
  }
  if (last < text.length) runs.push({ text: text.slice(last), classes: classesOf(state) });
  return runs;
}

/** The text without any ANSI escape sequence. */
export function stripAnsi(text: string): string {
  return hasAnsi(text) ? text.replace(ESCAPE, "") : text;
}
