/**
 * Code highlighting with lowlight (highlight.js grammars as a syntax tree, so nothing is parsed as
 * HTML). The page loads this module lazily, on the first code block; the HTML export imports it
 * directly.
 */
import type { Root } from "hast";
import { common, createLowlight } from "lowlight";

const lowlight = createLowlight(common);

/** Highlights `code` as `language` (a highlight.js name or alias); null for unknown languages. */
export function highlightCode(code: string, language: string): Root | null {
  const name = language.toLowerCase();
  if (!lowlight.registered(name)) return null;
  return lowlight.highlight(name, code);
}

/** A highlighter: the function above, passed around so the page can load it on demand. */
export type Highlighter = typeof highlightCode;
