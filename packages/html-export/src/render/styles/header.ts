/** The session header's goal line and token chart with its key. */
export const HEADER_STYLES = `.goal {
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
`;
