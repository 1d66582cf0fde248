/**
 * What a message shows: links, visible control characters, markdown, code blocks and numbered
 * output, diffs, highlight.js (lowlight) classes and ANSI colours in tool output.
 */
export const CONTENT_STYLES = `a {
  color: var(--accent);
}
a.seq {
  text-decoration: none;
}
a.seq:hover,
a.seq:focus {
  text-decoration: underline;
}
/* Hidden characters made visible: never reordered, never invisible. */
.ctrl {
  color: var(--ctrl);
  background: var(--ctrl-bg);
  border-radius: 3px;
  padding: 0 2px;
  font-family: ui-monospace, Menlo, monospace;
  font-size: 0.85em;
  unicode-bidi: isolate;
}
.markdown {
  overflow-wrap: anywhere;
  unicode-bidi: plaintext;
}
.markdown > :first-child {
  margin-top: 2px;
}
.markdown > :last-child {
  margin-bottom: 2px;
}
.markdown p {
  margin: 6px 0;
}
.markdown-pending p {
  white-space: pre-wrap;
}
.markdown code {
  background: var(--code-bg);
  padding: 0 3px;
  border-radius: 3px;
}
.link-target {
  color: var(--muted);
  font-size: 12px;
}
.link-refused {
  text-decoration: line-through dotted;
}
.image-ref {
  color: var(--muted);
}
pre.code-block,
pre.numbered,
pre.diff-lines {
  background: var(--code-bg);
  border: 1px solid var(--line);
  border-radius: 6px;
  padding: 6px 8px;
  margin: 4px 0;
  overflow-x: auto;
  font-family: ui-monospace, "SFMono-Regular", Menlo, monospace;
  font-size: 12px;
  line-height: 1.45;
}
pre.code-block code {
  font-size: 12px;
  background: none;
  padding: 0;
}
pre.numbered {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  counter-reset: none;
}
pre.numbered .line {
  display: block;
  padding-left: 4.2em;
  text-indent: -4.2em;
}
/* Line numbers come from CSS: copying the output copies only the output. */
pre.numbered .line::before {
  content: attr(data-line);
  display: inline-block;
  width: 3.4em;
  margin-right: 0.8em;
  text-align: right;
  color: var(--muted);
  user-select: none;
  text-indent: 0;
}
.diff-path {
  font-size: 12px;
  color: var(--muted);
}
.diff-line {
  display: block;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.diff-added {
  background: var(--added-bg);
}
.diff-removed {
  background: var(--removed-bg);
}
.args-preview {
  font-size: 12px;
}
/* highlight.js classes from lowlight */
.hljs-keyword,
.hljs-selector-tag,
.hljs-built_in {
  color: var(--hl-keyword);
}
.hljs-string,
.hljs-attr,
.hljs-template-tag {
  color: var(--hl-string);
}
.hljs-number,
.hljs-literal {
  color: var(--hl-number);
}
.hljs-comment {
  color: var(--muted);
  font-style: italic;
}
.hljs-title,
.hljs-function .hljs-title,
.hljs-title.function_ {
  color: var(--hl-title);
}
/* ANSI colours in tool output */
.ansi-bold {
  font-weight: 700;
}
.ansi-dim {
  opacity: 0.7;
}
.ansi-italic {
  font-style: italic;
}
.ansi-underline {
  text-decoration: underline;
}
.ansi-fg-0 {
  color: #3b3b3b;
}
.ansi-fg-1 {
  color: #c0392b;
}
.ansi-fg-2 {
  color: #2e8b3d;
}
.ansi-fg-3 {
  color: #a67c00;
}
.ansi-fg-4 {
  color: #2c5fb8;
}
.ansi-fg-5 {
  color: #9b3fb0;
}
.ansi-fg-6 {
  color: #16808a;
}
.ansi-fg-7 {
  color: #8a8a8a;
}
.ansi-fg-8 {
  color: #6b6b6b;
}
.ansi-fg-9 {
  color: #e74c3c;
}
.ansi-fg-10 {
  color: #3fb950;
}
.ansi-fg-11 {
  color: #d4a20a;
}
.ansi-fg-12 {
  color: #5a8dee;
}
.ansi-fg-13 {
  color: #c678dd;
}
.ansi-fg-14 {
  color: #2bb3c0;
}
.ansi-fg-15 {
  color: #b0b0b0;
}
.ansi-bg-0 {
  background: #3b3b3b;
}
.ansi-bg-1 {
  background: #f4c7c3;
}
.ansi-bg-2 {
  background: #c9ebd0;
}
.ansi-bg-3 {
  background: #f7e6a6;
}
.ansi-bg-4 {
  background: #c8d8f5;
}
.ansi-bg-5 {
  background: #ead0f2;
}
.ansi-bg-6 {
  background: #c3ebee;
}
.ansi-bg-7 {
  background: #e6e6e6;
}
`;
