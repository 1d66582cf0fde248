/** Hidden characters in a hast tree (Markdown, highlighted code) replaced by visible marks. */
import type { Element, ElementContent, Root, RootContent, Text } from "hast";
import { splitControls } from "./controls";

function marked(node: Text): ElementContent[] {
  const segments = splitControls(node.value);
  if (segments.length === 1 && segments[0]?.kind === "text") return [node];
  return segments.map(
    (segment): ElementContent =>
      segment.kind === "text"
        ? { type: "text", value: segment.text }
        : {
            type: "element",
            tagName: "span",
            properties: {
              className: segment.bidi ? ["ctrl", "ctrl-bidi"] : ["ctrl"],
              title: segment.title,
            },
            children: [{ type: "text", value: segment.text }],
          },
  );
}

function visit(parent: Root | Element, skip: (element: Element) => boolean): void {
  const children: Array<RootContent | ElementContent> = [];
  for (const child of parent.children) {
    if (child.type === "text") children.push(...marked(child));
    else {
      if (child.type === "element" && !skip(child)) visit(child, skip);
      children.push(child);
    }
  }
  parent.children = children as typeof parent.children;
}

/** Replaces hidden characters in every text node, in place; `skip` leaves some elements alone. */
export function markHiddenInTree(tree: Root, skip: (element: Element) => boolean = () => false) {
  visit(tree, skip);
  return tree;
}
