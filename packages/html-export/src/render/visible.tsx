/**
 * React views of untrusted text: hidden characters as marks, ANSI colours as styled runs.
 * Everything is a text node; nothing from the log becomes markup.
 */
import type { ReactNode } from "react";
import { hasAnsi, parseAnsi, splitControls } from "./controls";

/** Text with bidi, invisible and control characters shown as marks (`⟨RLO⟩`, `\x07`). */
export function Visible({ text }: { text: string }): ReactNode {
  const segments = splitControls(text);
  if (segments.length === 1 && segments[0]?.kind === "text") return segments[0].text;
  return segments.map((segment, index) =>
    segment.kind === "text" ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: segments never reorder
      <span key={index}>{segment.text}</span>
    ) : (
      <span
        // biome-ignore lint/suspicious/noArrayIndexKey: segments never reorder
        key={index}
        className={segment.bidi ? "ctrl ctrl-bidi" : "ctrl"}
        title={segment.title}
      >
        {segment.text}
      </span>
    ),
  );
}

/** Terminal output: ANSI colours rendered, other escape sequences removed, controls as marks. */
export function AnsiText({ text }: { text: string }): ReactNode {
  if (!hasAnsi(text)) return <Visible text={text} />;
  return parseAnsi(text).map((run, index) =>
    run.classes.length === 0 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: runs never reorder
      <Visible key={index} text={run.text} />
    ) : (
      // biome-ignore lint/suspicious/noArrayIndexKey: runs never reorder
      <span key={index} className={run.classes.join(" ")}>
        <Visible text={run.text} />
      </span>
    ),
  );
}
