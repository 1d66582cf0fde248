/**
 * Text rendering for untrusted session content: everything goes through React text nodes, never
 * through HTML. Search snippets arrive with private-use markers around matches, split here.
 */

import { truncate, Visible } from "@tapedeck/html-export/render";
import { useState } from "react";

export { preview } from "@tapedeck/html-export/render";

const OPEN = "\uE000";
const CLOSE = "\uE001";

/** A snippet with its matched terms in `<mark>`, as text. */
export function Highlighted({ text }: { text: string }) {
  const parts: Array<{ text: string; mark: boolean }> = [];
  let rest = text;
  while (rest !== "") {
    const open = rest.indexOf(OPEN);
    if (open === -1) {
      parts.push({ text: rest, mark: false });
      break;
    }
    if (open > 0) parts.push({ text: rest.slice(0, open), mark: false });
    const close = rest.indexOf(CLOSE, open + 1);
    const end = close === -1 ? rest.length : close;
    parts.push({ text: rest.slice(open + 1, end), mark: true });
    rest = close === -1 ? "" : rest.slice(close + 1);
  }
  return (
    <span className="snippet">
      {parts.map((part, index) =>
        part.mark ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts never reorder
          <mark key={index}>
            <Visible text={part.text} />
          </mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts never reorder
          <span key={index}>
            <Visible text={part.text} />
          </span>
        ),
      )}
    </span>
  );
}

/** Long text cut at `limit` characters with a "Show all" button. */
export function LongText({
  text,
  limit = 2000,
  className,
}: {
  text: string;
  limit?: number;
  className?: string;
}) {
  const [all, setAll] = useState(false);
  const shown = all ? { text, cut: false } : truncate(text, limit);
  return (
    <div className={className}>
      <pre className="text">
        <Visible text={shown.text} />
      </pre>
      {shown.cut ? (
        <button type="button" className="link" onClick={() => setAll(true)}>
          Show all ({text.length.toLocaleString()} characters)
        </button>
      ) : null}
    </div>
  );
}

/** Relative time, short. */
export function ago(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toISOString().slice(0, 10);
}
