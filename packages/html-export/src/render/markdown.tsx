/**
 * Message text as Markdown, safely: raw HTML is shown as text, links are followed only for http(s)
 * and always show their target, images are never loaded (they become links), code blocks are
 * highlighted, hidden characters are visible marks.
 */
import type { Element, Root as HastRoot } from "hast";
import type { Root as MdastRoot, RootContent } from "mdast";
import type { ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import { CodeBlock } from "./code-block";
import { markHiddenInTree } from "./hast-marks";
import { Visible } from "./visible";

/** Raw HTML in a message becomes literal text (never markup, never dropped silently). */
function htmlAsText() {
  const visit = (node: MdastRoot | RootContent) => {
    if ("children" in node) {
      node.children = node.children.map((child) =>
        child.type === "html" ? { type: "text", value: child.value } : child,
      ) as typeof node.children;
      for (const child of node.children) visit(child);
    }
  };
  return (tree: MdastRoot) => visit(tree);
}

const isBlockCode = (element: Element) => element.tagName === "pre";

/** Hidden characters become marks everywhere except code blocks (which mark their own). */
function hiddenAsMarks() {
  return (tree: HastRoot) => {
    markHiddenInTree(tree, isBlockCode);
  };
}

/** Only http(s) URLs are followed. */
export function safeHref(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

function textOf(element: Element | undefined): string {
  if (element === undefined) return "";
  return element.children
    .map((child) =>
      child.type === "text" ? child.value : child.type === "element" ? textOf(child) : "",
    )
    .join("");
}

const components: Components = {
  a({ href, children, node }) {
    const target = safeHref(href);
    const label = textOf(node);
    if (target === null) {
      return (
        <span className="link-refused" title="Only http(s) links are followed">
          {children}{" "}
          <span className="link-target">
            (<Visible text={href ?? ""} />)
          </span>
        </span>
      );
    }
    return (
      <>
        <a href={target} target="_blank" rel="noopener noreferrer nofollow">
          {children}
        </a>
        {label === href || label === target ? null : (
          <span className="link-target">
            {" "}
            (<Visible text={target} />)
          </span>
        )}
      </>
    );
  },
  img({ src, alt }) {
    // Never load an image from the log: show what it points to instead.
    const target = safeHref(typeof src === "string" ? src : undefined);
    const text = `image: ${alt === undefined || alt === "" ? "(no description)" : alt}`;
    return (
      <span className="image-ref">
        [<Visible text={text} />]{" "}
        {target === null ? (
          <span className="link-target">
            (<Visible text={String(src ?? "")} />)
          </span>
        ) : (
          <a href={target} target="_blank" rel="noopener noreferrer nofollow">
            <Visible text={target} />
          </a>
        )}
      </span>
    );
  },
  pre({ node }) {
    const code = node?.children.find(
      (child): child is Element => child.type === "element" && child.tagName === "code",
    );
    const classes = code?.properties.className;
    const language =
      Array.isArray(classes) &&
      classes
        .map(String)
        .find((name) => name.startsWith("language-"))
        ?.slice("language-".length);
    return <CodeBlock code={textOf(code).replace(/\n$/, "")} language={language || ""} />;
  },
};

const remarkPlugins = [htmlAsText];
const rehypePlugins = [hiddenAsMarks];
/** Every URL reaches the components unchanged; they decide what is followed. */
const keepUrl = (url: string) => url;

/** Markdown longer than this is shown as plain text (parsing it would stall the page). */
export const MARKDOWN_LIMIT = 100_000;

/** A message rendered as safe Markdown. */
export function Markdown({ text }: { text: string }): ReactNode {
  if (text.length > MARKDOWN_LIMIT) {
    return (
      <pre className="text">
        <Visible text={text} />
      </pre>
    );
  }
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        rehypePlugins={rehypePlugins}
        components={components}
        urlTransform={keepUrl}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
