/**
 * Untrusted text made safe to look at: bidirectional overrides and isolates, zero-width and other
 * invisible format characters, and C0/C1 control characters become visible marks instead of
 * reordering or hiding what is shown; ANSI SGR colour sequences become styled runs and every
 * other escape sequence is removed. Pure (no DOM), shared by the page and the HTML export.
 */
import { toVisibleText } from "@tapedeck/session";

/** A run of text: plain, or one invisible/control character shown as a mark. */
export type TextSegment =
  | { kind: "text"; text: string }
  | { kind: "mark"; text: string; title: string; bidi: boolean };

/** True for the bidirectional override and isolate characters (U+202A–202E, U+2066–2069). */
export function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** True when `text` holds a character {@link splitControls} shows as a mark (CRLF does not count). */
export function hasHiddenCharacters(text: string): boolean {
  return toVisibleText(text.replace(/\r\n/g, "\n"), { keepLineBreaks: true }).hiddenCount > 0;
}

/**
 * Splits text into plain runs and marks, using the one rule of `@tapedeck/session`
 * (`toVisibleText`): newlines and tabs stay, a `\r` right before `\n` (Windows line ending) is
 * dropped, every other hidden character becomes its escape (`\u{202E}`, `\e`, `\x07`).
 */
export function splitControls(text: string): TextSegment[] {
  const source = text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
  return toVisibleText(source, { keepLineBreaks: true }).segments.map((segment) =>
    segment.kind === "text"
      ? segment
      : {
          kind: "mark",
          text: segment.text,
          title: `U+${segment.codePoint.toString(16).toUpperCase().padStart(4, "0")} ${segment.name}`,
          bidi: isBidiControl(segment.codePoint),
        },
  );
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
