/**
 * A fenced code block: shown as plain monospace text at once, then highlighted when the
 * highlighter is available (the page loads it lazily; the export provides it up front).
 */
import { toJsxRuntime } from "hast-util-to-jsx-runtime";
import { createContext, type ReactNode, useContext } from "react";
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import { markHiddenInTree } from "./hast-marks";
import type { Highlighter } from "./highlight";
import { type LazySource, lazySource, useLazy } from "./lazy";
import { Visible } from "./visible";

/** How code blocks get their highlighter: `load` resolves it (once), `ready` is synchronous. */
export type HighlighterSource = LazySource<Highlighter>;

/** The page's source: `./highlight` is a separate chunk, fetched on the first code block. */
export const lazyHighlighter: HighlighterSource = lazySource(() =>
  import("./highlight").then((module) => module.highlightCode),
);

/** Where {@link CodeBlock} finds its highlighter. */
export const HighlighterContext = createContext<HighlighterSource>(lazyHighlighter);

/** Code blocks longer than this stay plain (highlighting them would stall the page). */
const HIGHLIGHT_LIMIT = 50_000;

/** One code block, `language` from the fence (may be empty). */
export function CodeBlock({ code, language }: { code: string; language: string }): ReactNode {
  const wanted = language !== "" && code.length <= HIGHLIGHT_LIMIT;
  const highlighter = useLazy(useContext(HighlighterContext), wanted);
  const tree = wanted && highlighter !== null ? highlighter(code, language) : null;
  return (
    <pre className="code-block" data-language={language === "" ? undefined : language}>
      <code className={tree === null ? undefined : "hljs"}>
        {tree === null ? (
          <Visible text={code} />
        ) : (
          toJsxRuntime(markHiddenInTree(tree), { Fragment, jsx, jsxs })
        )}
      </code>
    </pre>
  );
}
