/** Keyboard navigation: `j`/`k` between turns, `/` to the search box. */

import type { TimelineRow } from "@tapedeck/html-export/render";
import { useEffect } from "react";

/** True when a key press belongs to a text field, not to the page. */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === "INPUT" ||
    target.tagName === "TEXTAREA" ||
    target.tagName === "SELECT"
  );
}

/** The turn `j` (next) or `k` (previous) moves to from the selected event. */
export function nextTurnSeq(
  rows: readonly TimelineRow[],
  seq: number | null,
  direction: 1 | -1,
): number | null {
  const turns = rows.filter((row) => row.kind === "turn").map((row) => row.seq);
  if (turns.length === 0) return null;
  if (seq === null) return direction === 1 ? (turns[0] ?? null) : (turns.at(-1) ?? null);
  if (direction === 1) return turns.find((turnSeq) => turnSeq > seq) ?? null;
  // Back: to the start of the current turn if inside it, else to the previous turn.
  return turns.findLast((turnSeq) => turnSeq < seq) ?? null;
}

/** `j`/`k` select the next/previous turn of the open session. */
export function useTurnKeys(
  rows: readonly TimelineRow[],
  seq: number | null,
  onSelectSeq: (seq: number) => void,
): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || typingIn(event.target)) return;
      if (event.key !== "j" && event.key !== "k") return;
      const target = nextTurnSeq(rows, seq, event.key === "j" ? 1 : -1);
      if (target === null) return;
      event.preventDefault();
      onSelectSeq(target);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, seq, onSelectSeq]);
}

/** `/` focuses the search box. */
export function useSearchKey(focus: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "/" || event.metaKey || event.ctrlKey || typingIn(event.target)) return;
      event.preventDefault();
      focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [focus]);
}
