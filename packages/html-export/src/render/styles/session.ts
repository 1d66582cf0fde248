/**
 * The session page: its header and actions, the timeline and its rows (turns, roles, tools,
 * compaction, model changes), tags, errors, and the side (trace) panel.
 */
export const SESSION_STYLES = `.main {
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
.attachments {
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  margin-top: 6px;
}
img.attachment {
  max-width: min(100%, 640px);
  max-height: 480px;
  border: 1px solid var(--line);
  border-radius: 4px;
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
.turn-files {
  margin: 0 12px 6px 28px;
  font-size: 0.9em;
}
.turn-files ul {
  margin: 2px 0;
  padding-left: 0;
  list-style: none;
}
.turn-files .link-button {
  background: none;
  border: none;
  padding: 1px 0;
  color: inherit;
  cursor: pointer;
  text-align: left;
}
.rewind-preview label {
  display: block;
  margin-top: 4px;
}
.rewind-preview {
  margin: 6px 0;
  padding: 8px 10px;
  border: 1px solid var(--line);
  border-radius: 6px;
  background: var(--panel);
}
`;
