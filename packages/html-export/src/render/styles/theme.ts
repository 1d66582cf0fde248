/**
 * The dark palette: applied by the toggle (`data-theme="dark"`) and, when nothing is chosen, by the
 * system.
 */
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
 * The palette: light variables on `:root`, the dark ones chosen by the toggle (`data-theme`) or,
 * when nothing is chosen, by the system; the page font.
 */
export const THEME_STYLES = `:root {
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
`;
