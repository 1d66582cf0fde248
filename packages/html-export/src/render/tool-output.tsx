/**
 * Tool output as monospace lines with line numbers (numbers drawn by CSS, so copying the output
 * copies only the output), ANSI colours rendered, and "Show all" past the first lines.
 */
import { type ReactNode, useState } from "react";
import { AnsiText } from "./visible";

/** How much is shown before "Show all". */
export interface OutputLimits {
  lines: number;
  characters: number;
}

const defaults: OutputLimits = { lines: 40, characters: 2000 };

/** The part of `text` shown before "Show all": whole lines, within both limits. */
export function cutOutput(
  text: string,
  limits: OutputLimits = defaults,
): {
  shown: string;
  cut: boolean;
} {
  let end = 0;
  let lines = 0;
  while (end < text.length && lines < limits.lines && end < limits.characters) {
    const next = text.indexOf("\n", end);
    end = next === -1 ? text.length : next + 1;
    lines += 1;
  }
  if (end > limits.characters) end = limits.characters;
  return end >= text.length
    ? { shown: text, cut: false }
    : { shown: text.slice(0, end), cut: true };
}

/** Numbered lines. */
export function NumberedLines({ text, className }: { text: string; className?: string }) {
  const lines = text.replace(/\n$/, "").split("\n");
  return (
    <pre className={`numbered${className === undefined ? "" : ` ${className}`}`}>
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines never reorder
        <span key={index} className="line" data-line={index + 1}>
          <AnsiText text={line} />
          {"\n"}
        </span>
      ))}
    </pre>
  );
}

/** A tool's output; `all` shows everything from the start (the HTML export). */
export function ToolOutput({
  text,
  error = false,
  all = false,
  limits = defaults,
}: {
  text: string;
  error?: boolean;
  all?: boolean;
  limits?: OutputLimits;
}): ReactNode {
  const [showAll, setShowAll] = useState(all);
  const { shown, cut } = showAll ? { shown: text, cut: false } : cutOutput(text, limits);
  const lineCount = text.split("\n").length;
  return (
    <div className={`tool-output${error ? " error-text" : ""}`}>
      <NumberedLines text={shown} />
      {cut ? (
        <button type="button" className="link" onClick={() => setShowAll(true)}>
          Show all ({lineCount.toLocaleString("en-US")} lines, {text.length.toLocaleString("en-US")}{" "}
          characters)
        </button>
      ) : null}
    </div>
  );
}
