/**
 * The two-column page grid and the sidebar: brand, search box, filters, the session list and its
 * items, and the status badges they (and run cards) carry.
 */
export const SIDEBAR_STYLES = `.app {
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
`;
