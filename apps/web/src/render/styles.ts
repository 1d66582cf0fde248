/** The dark palette: applied by the toggle (`data-theme="dark"`) and, when nothing is chosen, by the system. */
const DARK_VARIABLES = `  color-scheme: dark;
  --hl-keyword: #d49cff;
  --hl-string: #8fdc9c;
  --hl-number: #ffb86b;
  --hl-title: #8ab4ff;
  --hover: #262b33;
  --selected-bg: #233149;
  --mark: #6b5a12;
  --ok: #7fd19b;
  --ok-line: #2f5a3d;
  --info-line: #34507c;
  --warn-line: #6e5324;
  --error-line: #7a3530;
  --error-bg: #3a1f1d;
  --system-bg: #1e2127;
  --compaction-bg: #2a271d;
  --model-bg: #1f2126;
  --approval-bg: #3a3018;
  --run-bg: #1e2633;
  --code-bg: #16181c;
  --added-bg: #183324;
  --removed-bg: #3d1d1b;
  --ctrl: #ffb4ab;
  --ctrl-bg: #5a1f1a;
  --bg: #15171a;
  --panel: #1c1f24;
  --line: #30343b;
  --text: #e4e4e0;
  --muted: #9a9da3;
  --accent: #7aa7ff;
  --user: #1d2a40;
  --assistant: #1c1f24;
  --warn: #e3b15f;
  --error: #ff8a80;`;

/**
 * The one stylesheet: the page injects it at start (main.tsx) and the HTML export inlines it, so a
 * shared file looks the same in both. Kept as a string so the CLI's bundle needs no CSS loader.
 */
export const STYLES = `:root {
  color-scheme: light;
  --hl-title: #2c5fb8;
  --hl-number: #b05a00;
  --hl-string: #1f7a3a;
  --hl-keyword: #8b3fb0;
  --hover: #f2f4f8;
  --selected-bg: #e6edfa;
  --mark: #ffe58a;
  --ok: #1f6f3a;
  --ok-line: #b9dcc4;
  --info-line: #bcd0f0;
  --warn-line: #ecd3a8;
  --error-line: #efbcb8;
  --error-bg: #fdf1f0;
  --system-bg: #fafaf7;
  --compaction-bg: #fbf8ef;
  --model-bg: #f5f5f2;
  --approval-bg: #fff8e6;
  --run-bg: #f4f7fd;
  --code-bg: #f3f3ef;
  --added-bg: #e6f4ea;
  --removed-bg: #fce8e6;
  --ctrl: #b3261e;
  --ctrl-bg: #fde7e4;
  --bg: #f7f7f5;
  --panel: #ffffff;
  --line: #e2e2dc;
  --text: #1d1d1b;
  --muted: #6b6b66;
  --accent: #2c5fb8;
  --user: #eef3fc;
  --assistant: #ffffff;
  --warn: #9a5b00;
  --error: #b3261e;
  font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", sans-serif;
  font-size: 14px;
  color: var(--text);
  background: var(--bg);
}
/* Dark: chosen with the toggle (data-theme) or, when nothing is chosen, by the system. */
:root[data-theme="dark"] {
${DARK_VARIABLES}
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
${DARK_VARIABLES}
  }
}
* {
  box-sizing: border-box;
}
body {
  margin: 0;
}
button,
select,
input,
textarea {
  font: inherit;
}
textarea,
input,
select {
  color: var(--text);
  background: var(--panel);
}
button {
  cursor: pointer;
  color: var(--text);
  border: 1px solid var(--line);
  background: var(--panel);
  border-radius: 6px;
  padding: 4px 10px;
}
button.primary {
  background: var(--accent);
  color: white;
  border-color: var(--accent);
}
button.active {
  border-color: var(--accent);
  color: var(--accent);
}
button:disabled {
  opacity: 0.5;
  cursor: default;
}
a.button {
  border: 1px solid var(--line);
  background: var(--panel);
  border-radius: 6px;
  padding: 4px 10px;
  color: var(--text);
  text-decoration: none;
}
button.link {
  border: none;
  background: none;
  padding: 0;
  color: var(--accent);
  border-radius: 0;
}
button.link:hover {
  text-decoration: underline;
}
code {
  font-family: ui-monospace, "SFMono-Regular", Menlo, monospace;
  font-size: 12px;
}
pre.text {
  white-space: pre-wrap;
  word-break: break-word;
  overflow-wrap: anywhere;
  margin: 4px 0;
  font-family: inherit;
}
.muted {
  color: var(--muted);
}
.small {
  font-size: 12px;
}
.pad {
  padding: 12px 16px;
}
.app {
  display: grid;
  grid-template-columns: 340px 1fr;
  height: 100vh;
}
.sidebar {
  border-right: 1px solid var(--line);
  background: var(--panel);
  display: flex;
  flex-direction: column;
  min-height: 0;
}
.brand {
  padding: 12px 14px;
  border-bottom: 1px solid var(--line);
  display: flex;
  flex-direction: column;
  gap: 2px;
}
button.link.brand-link {
  font-weight: 700;
  font-size: 16px;
  color: var(--text);
  text-align: left;
}
.session-list {
  display: flex;
  flex-direction: column;
  min-height: 0;
  flex: 1;
  overflow-y: auto;
}
.search {
  margin: 10px 12px 6px;
  padding: 7px 10px;
  border: 1px solid var(--line);
  border-radius: 6px;
}
.filters {
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  padding: 0 12px 8px;
  border-bottom: 1px solid var(--line);
}
.filters select,
.filters input {
  max-width: 150px;
  font-size: 12px;
  padding: 2px 4px;
}
.items {
  list-style: none;
  margin: 0;
  padding: 0;
}
.item {
  width: 100%;
  text-align: left;
  border: none;
  border-bottom: 1px solid var(--line);
  border-radius: 0;
  padding: 8px 12px;
  display: flex;
  flex-direction: column;
  gap: 3px;
  background: none;
}
.item:hover {
  background: var(--hover);
}
.item.selected {
  background: var(--selected-bg);
}
.item-title {
  font-weight: 600;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.item-meta {
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  color: var(--muted);
  font-size: 12px;
}
.snippet {
  color: var(--muted);
  font-size: 12px;
  overflow-wrap: anywhere;
}
mark {
  background: var(--mark);
  color: inherit;
  padding: 0 1px;
}
.sentinel {
  padding: 8px 12px;
  color: var(--muted);
  font-size: 12px;
  min-height: 24px;
}
.status {
  font-size: 11px;
  border-radius: 8px;
  padding: 0 6px;
  border: 1px solid var(--line);
}
.status-completed,
.status-ok,
.status-done {
  color: var(--ok);
  border-color: var(--ok-line);
}
.status-active,
.status-running,
.status-starting,
.status-open {
  color: var(--accent);
  border-color: var(--info-line);
}
.status-interrupted,
.status-cancelled,
.status-failed,
.status-error,
.status-waiting_approval,
.status-cancelling {
  color: var(--warn);
  border-color: var(--warn-line);
}
.status-damaged {
  color: var(--error);
  border-color: var(--error-line);
}
.main {
  display: flex;
  flex-direction: column;
  min-height: 0;
  min-width: 0;
}
.page {
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
}
.welcome {
  display: block;
  overflow: auto;
}
.session-header {
  display: flex;
  gap: 12px;
  justify-content: space-between;
  align-items: flex-start;
  padding: 10px 16px;
  border-bottom: 1px solid var(--line);
  background: var(--panel);
}
.session-title {
  min-width: 0;
}
.session-title h1 {
  font-size: 16px;
  margin: 0 0 4px;
  overflow-wrap: anywhere;
}
.actions {
  display: flex;
  gap: 6px;
  flex-wrap: wrap;
  justify-content: flex-end;
}
.session-body {
  flex: 1;
  min-height: 0;
  display: grid;
  grid-template-columns: 1fr 360px;
}
.timeline-column {
  display: flex;
  flex-direction: column;
  min-height: 0;
}
.timeline-column > .timeline {
  flex: 1;
}
.load-earlier {
  margin: 4px 8px;
  align-self: center;
}
.timeline {
  overflow-y: auto;
  min-height: 0;
  padding: 0 8px;
  contain: strict;
}
.row-wrap {
  padding: 4px 4px;
}
.row {
  background: var(--assistant);
  border: 1px solid var(--line);
  border-radius: 8px;
  padding: 8px 10px;
  position: relative;
}
.row.selected {
  outline: 2px solid var(--accent);
}
.row.replaced {
  opacity: 0.6;
}
.row-turn {
  background: none;
  border: none;
  border-bottom: 2px solid var(--line);
  border-radius: 0;
  display: flex;
  gap: 10px;
  align-items: center;
  flex-wrap: wrap;
  padding-top: 14px;
}
.turn-title {
  font-weight: 700;
}
.role-user {
  background: var(--user);
}
.role-system,
.role-developer {
  background: var(--system-bg);
}
.row-head {
  display: flex;
  gap: 8px;
  align-items: center;
  flex-wrap: wrap;
}
.role {
  font-size: 11px;
  text-transform: uppercase;
  letter-spacing: 0.04em;
  color: var(--muted);
  font-weight: 600;
}
.row-actions {
  position: absolute;
  top: 6px;
  right: 8px;
  display: inline-flex;
  gap: 10px;
  font-size: 12px;
  padding: 0 4px;
  background: var(--panel);
  border-radius: 4px;
  /* Shown on hover or keyboard focus only (still focusable while transparent). */
  opacity: 0;
}
.row:hover .row-actions,
.row:focus-within .row-actions,
.row.selected .row-actions {
  opacity: 1;
}
.row-tool summary {
  cursor: pointer;
  overflow-wrap: anywhere;
}
.tool-body {
  padding: 6px 0 0 12px;
  border-left: 2px solid var(--line);
  margin-top: 6px;
}
.row-compaction {
  background: var(--compaction-bg);
}
.row-model {
  display: flex;
  gap: 10px;
  align-items: center;
  flex-wrap: wrap;
  background: var(--model-bg);
}
.tag {
  font-size: 11px;
  border: 1px solid var(--line);
  border-radius: 8px;
  padding: 0 6px;
  color: var(--muted);
}
.tag.warn {
  color: var(--warn);
  border-color: var(--warn-line);
}
.error-text,
.error-text pre {
  color: var(--error);
}
.error-box {
  margin: 8px 12px;
  padding: 8px 10px;
  border: 1px solid var(--error-line);
  background: var(--error-bg);
  color: var(--error);
  border-radius: 6px;
  overflow-wrap: anywhere;
}
.side-panel {
  border-left: 1px solid var(--line);
  background: var(--panel);
  overflow-y: auto;
  min-height: 0;
}
.side-panel h2 {
  font-size: 14px;
  margin: 0 0 6px;
}
.side-panel h3 {
  font-size: 12px;
  text-transform: uppercase;
  color: var(--muted);
  margin: 12px 0 4px;
}
.side-panel ul,
.side-panel ol {
  padding-left: 18px;
  margin: 0;
  overflow-wrap: anywhere;
}
.tree .current {
  font-weight: 700;
}
.model-input li {
  margin-bottom: 6px;
}
.replaced-list {
  margin: 4px 0;
  padding-left: 18px;
  overflow-wrap: anywhere;
}
.composer {
  border-top: 1px solid var(--line);
  background: var(--panel);
  padding: 8px 12px;
  display: flex;
  flex-direction: column;
  gap: 6px;
  max-height: 45vh;
}
.composer.disabled {
  color: var(--muted);
}
.banner {
  font-size: 13px;
  background: var(--user);
  border: 1px solid var(--info-line);
  border-radius: 6px;
  padding: 4px 8px;
}
.live-run {
  overflow-y: auto;
  max-height: 24vh;
  border: 1px solid var(--line);
  border-radius: 6px;
  padding: 6px 8px;
}
.approval {
  display: flex;
  gap: 8px;
  align-items: center;
  padding: 6px;
  background: var(--approval-bg);
  border: 1px solid var(--warn-line);
  border-radius: 6px;
  margin: 4px 0;
}
.approval-command {
  white-space: pre-wrap;
  word-break: break-all;
  unicode-bidi: isolate;
  direction: ltr;
}
.approval-warning {
  color: #a12;
}
.composer-row {
  display: flex;
  gap: 8px;
}
.composer-row textarea {
  flex: 1;
  min-height: 54px;
  resize: vertical;
  border: 1px solid var(--line);
  border-radius: 6px;
  padding: 6px 8px;
}
.composer-actions {
  display: flex;
  flex-direction: column;
  gap: 6px;
}
.run-card {
  margin: 8px 12px;
  border: 1px solid var(--info-line);
  background: var(--run-bg);
  border-radius: 8px;
  padding: 8px 10px;
  display: flex;
  flex-direction: column;
  gap: 3px;
}
.run-card-title {
  font-weight: 600;
  font-size: 12px;
  text-transform: uppercase;
  color: var(--muted);
}
a {
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
.goal {
  margin-top: 4px;
  font-size: 13px;
  overflow-wrap: anywhere;
}
.goal-label {
  font-size: 11px;
  text-transform: uppercase;
  font-weight: 700;
  color: var(--accent);
}
.token-chart {
  margin: 0;
  flex: 0 1 auto;
  min-width: 0;
}
.token-chart svg {
  display: block;
  max-width: 100%;
}
.token-chart .bar-hit {
  fill: transparent;
}
.token-chart a:hover .bar-hit,
.token-chart a:focus .bar-hit {
  fill: var(--hover);
}
.token-chart .bar-input,
.key-input::before {
  fill: #2c5fb8;
  background: #2c5fb8;
}
.token-chart .bar-cached,
.key-cached::before {
  fill: #8fb0e8;
  background: #8fb0e8;
}
.token-chart .bar-output,
.key-output::before {
  fill: #d08a1f;
  background: #d08a1f;
}
.key::before {
  content: "";
  display: inline-block;
  width: 8px;
  height: 8px;
  margin-right: 3px;
}
.hit-group {
  border-bottom: 1px solid var(--line);
}
.hit-group-title {
  padding: 6px 12px 0;
  display: flex;
  gap: 6px;
  align-items: baseline;
  min-width: 0;
}
.group-hits {
  list-style: none;
  margin: 0;
  padding: 0 0 0 8px;
}
.group-hits .item {
  border-bottom: none;
  padding: 4px 12px;
}
.session-body.panel-closed {
  grid-template-columns: 1fr;
}
.theme-toggle {
  align-self: flex-start;
  font-size: 12px;
  padding: 1px 8px;
}
.composer-hint {
  display: flex;
  justify-content: space-between;
  gap: 8px;
  font-size: 12px;
  color: var(--muted);
}
.composer-hint .over {
  color: var(--error);
  font-weight: 600;
}
.banner.new-session {
  background: var(--model-bg);
  border-color: var(--line);
}
.approval-text {
  font-family: ui-monospace, Menlo, monospace;
  font-size: 12px;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
/* 1024 px: a narrower sidebar and trace panel; the panel can be closed from the header. */
@media (max-width: 1200px) {
  .app {
    grid-template-columns: 280px 1fr;
  }
  .session-body {
    grid-template-columns: 1fr 300px;
  }
  .session-header {
    flex-wrap: wrap;
  }
}
`;
