import { approvalText, hasHiddenCharacters } from "@tapedeck/session";

/** A title as surfaces show it. */
export interface ToolTitle {
  /**
   * The whole title with every control, escape, bidi and invisible character made visible, and
   * ` [contains hidden characters]` appended when there was one. Never cut.
   */
  title: string;
  /** True when the raw title held a hidden character: surfaces flag the approval. */
  hiddenCharacters: boolean;
}

/**
 * The one place a tool call's title becomes display text (CLI lines and approval prompts, ACP
 * tool calls and permission requests, the viewer's run card). The model chooses the arguments, so
 * the title is untrusted: an escape sequence, a carriage return or a bidi override must not make
 * a person approve something other than what runs.
 */
export function toolTitle(raw: string): ToolTitle {
  return { title: approvalText(raw), hiddenCharacters: hasHiddenCharacters(raw) };
}
