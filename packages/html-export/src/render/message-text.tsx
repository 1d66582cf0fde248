/**
 * A message's text in the timeline. The Markdown renderer (react-markdown, micromark, the hast
 * tools: about half of the page's code) is a chunk of its own: the page's first rows show the
 * text plain at once (hidden characters marked, lines kept), and each message is rendered as
 * Markdown as soon as the chunk has arrived (the HTML page preloads it). The HTML export
 * provides the renderer up front ({@link MarkdownContext}) and never shows the plain form.
 */
import { createContext, type ReactNode, useContext } from "react";
import { type LazySource, lazySource, useLazy } from "./lazy";
import type { Markdown } from "./markdown";
import { Visible } from "./visible";

/** Where {@link MessageText} finds the Markdown renderer. */
export type MarkdownSource = LazySource<typeof Markdown>;

/** The page's source: `./markdown` is a separate chunk, asked for by the first message shown. */
export const lazyMarkdown: MarkdownSource = lazySource(() =>
  import("./markdown").then((module) => module.Markdown),
);

/** The renderer messages use (the page: {@link lazyMarkdown}). */
export const MarkdownContext = createContext<MarkdownSource>(lazyMarkdown);

/** A message as safe Markdown; plain text until the renderer is loaded. */
export function MessageText({ text }: { text: string }): ReactNode {
  const Renderer = useLazy(useContext(MarkdownContext));
  if (Renderer !== null) return <Renderer text={text} />;
  return (
    <div className="markdown markdown-pending">
      <p>
        <Visible text={text} />
      </p>
    </div>
  );
}
