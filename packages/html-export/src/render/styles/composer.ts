/** The composer under the timeline: banners, the live run, approval prompts, and run cards. */
export const COMPOSER_STYLES = `.composer {
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
`;
