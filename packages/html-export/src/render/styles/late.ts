/**
 * Rules added after the others and kept last, in their original order: search hit groups, the
 * closable side panel, the theme toggle, the composer hint, the new-session banner, approval text,
 * and the narrow-screen (1200 px) layout, which must come after every rule it overrides.
 */
export const LATE_STYLES = `.hit-group {
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
