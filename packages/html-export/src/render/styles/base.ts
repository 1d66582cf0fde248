/**
 * Elements and shared controls: box model, form fields, buttons, links as buttons, code, and the
 * small utility classes (`.muted`, `.small`, `.pad`).
 */
export const BASE_STYLES = `* {
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
`;
