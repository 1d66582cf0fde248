/** Tokens per turn as stacked bars: fresh input, cached input, output. Plain SVG, no library. */
import type { TurnTokens } from "../timeline/timeline";

/** One formatter for every label: `toLocaleString` builds one per call (slow by thousands of bars). */
const numbers = new Intl.NumberFormat("en-US");

const HEIGHT = 56;
const BAR = 10;
const GAP = 3;

/** The chart; each bar links to its turn (`href(seq)`). */
export function TokenChart({
  bars,
  href,
  onSelect,
}: {
  bars: readonly TurnTokens[];
  href(seq: number): string;
  onSelect?(seq: number): void;
}) {
  const max = Math.max(1, ...bars.map((bar) => bar.input + bar.cached + bar.output));
  const scale = (value: number) => (value / max) * HEIGHT;
  const width = Math.max(1, bars.length) * (BAR + GAP);
  if (bars.length === 0) return null;
  return (
    <figure className="token-chart" data-testid="token-chart">
      <svg
        width={Math.min(width, 640)}
        height={HEIGHT}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label="Tokens per turn"
      >
        {bars.map((bar, index) => {
          const x = index * (BAR + GAP);
          const output = scale(bar.output);
          const cached = scale(bar.cached);
          const input = scale(bar.input);
          return (
            <a
              key={bar.seq}
              href={href(bar.seq)}
              onClick={(event) => {
                if (onSelect === undefined) return;
                event.preventDefault();
                onSelect(bar.seq);
              }}
            >
              <title>
                {`Turn ${bar.turn}: ${numbers.format(bar.input)} input, ${numbers.format(bar.cached)} cached, ${numbers.format(bar.output)} output tokens`}
              </title>
              <rect className="bar-hit" x={x} y={0} width={BAR} height={HEIGHT} />
              <rect className="bar-input" x={x} y={HEIGHT - input} width={BAR} height={input} />
              <rect
                className="bar-cached"
                x={x}
                y={HEIGHT - input - cached}
                width={BAR}
                height={cached}
              />
              <rect
                className="bar-output"
                x={x}
                y={HEIGHT - input - cached - output}
                width={BAR}
                height={output}
              />
            </a>
          );
        })}
      </svg>
      <figcaption className="muted small">
        tokens per turn: <span className="key key-input">input</span>{" "}
        <span className="key key-cached">cached</span>{" "}
        <span className="key key-output">output</span>
      </figcaption>
    </figure>
  );
}
