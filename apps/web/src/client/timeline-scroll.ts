/**
 * Where the timeline's list scrolls, one hook per rule: to a linked event, to the newest turn of a
 * followed run, keeping the top row when an earlier page arrives, and staying at the end.
 */

import type { Virtualizer } from "@tanstack/react-virtual";
import type { TimelineRow } from "@tapedeck/html-export/render";
import { type RefObject, useEffect, useLayoutEffect, useRef } from "react";
import { rowIndexOf } from "./timeline-rows";

/** The timeline's virtualiser. */
export type TimelineVirtualizer = Virtualizer<HTMLDivElement, Element>;

/** Marks `tapedeck:first-rows` once, when the first rows are drawn. */
export function useFirstRowsMark(drawn: boolean): void {
  useLayoutEffect(() => {
    if (drawn && performance.getEntriesByName("tapedeck:first-rows").length === 0) {
      performance.mark("tapedeck:first-rows");
    }
  }, [drawn]);
}

/** Scrolls the linked event (`seq`) into the middle, once per seq. */
export function useScrollToSeq(
  seq: number | null,
  rows: TimelineRow[],
  virtualizer: TimelineVirtualizer,
): void {
  const scrolledFor = useRef<number | null>(null);
  useEffect(() => {
    if (seq === null || scrolledFor.current === seq) return;
    const index = rowIndexOf(rows, seq);
    if (index < 0) return;
    // Row heights are measured as rows render, so one scrollToIndex can land short of a far row:
    // repeat on the next frames until the row is rendered (then never again for this seq, so
    // live refreshes do not pull the page back).
    let attempts = 0;
    let frame = 0;
    const step = () => {
      if (virtualizer.getVirtualItems().some((item) => item.index === index)) {
        virtualizer.scrollToIndex(index, { align: "center" });
        scrolledFor.current = seq;
        return;
      }
      virtualizer.scrollToIndex(index, { align: "center" });
      attempts += 1;
      if (attempts < 60) frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [seq, rows, virtualizer]);
}

/** While a run of this session goes on, its newest turn stays in view as it grows. */
export function useFollowNewestTurn(
  following: boolean,
  rows: TimelineRow[],
  virtualizer: TimelineVirtualizer,
): void {
  useEffect(() => {
    if (!following || rows.length === 0) return;
    const lastTurn = rows.findLastIndex((row) => row.kind === "turn");
    virtualizer.scrollToIndex(lastTurn >= 0 ? lastTurn : rows.length - 1, { align: "start" });
  }, [following, rows, virtualizer]);
}

/**
 * Rows added in front (an earlier page) keep the row that was at the top where it was. Returns the
 * ref the caller sets to the top row's seq before it asks for the earlier page.
 */
export function useKeepTopRow(
  rows: TimelineRow[],
  virtualizer: TimelineVirtualizer,
): RefObject<number | null> {
  const topSeq = useRef<number | null>(null);
  const heldFirst = useRef<number | undefined>(undefined);
  useEffect(() => {
    const first = rows[0]?.seq;
    if (heldFirst.current !== undefined && first !== heldFirst.current && topSeq.current !== null) {
      const index = rowIndexOf(rows, topSeq.current);
      if (index >= 0) virtualizer.scrollToIndex(index, { align: "start" });
    }
    heldFirst.current = first;
  }, [rows, virtualizer]);
  return topSeq;
}

/** What {@link useStayAtEnd} reads. */
export interface StayAtEndOptions {
  rows: TimelineRow[];
  virtualizer: TimelineVirtualizer;
  following: boolean;
  parent: RefObject<HTMLDivElement | null>;
  /** Set while a paged session opens at its newest rows; cleared once the end has settled. */
  openedPaged: RefObject<boolean>;
  /** The list's height now (`virtualizer.getTotalSize()`). */
  totalSize: number;
}

/**
 * Scrolled to the end, the timeline stays at the end as streamed rows arrive and as rows grow
 * (messages shown plain until the Markdown renderer has loaded, then rendered). Returns the ref
 * saying whether the list is at its end (the list's scroll handler keeps it up to date).
 */
export function useStayAtEnd(options: StayAtEndOptions): RefObject<boolean> {
  const { rows, virtualizer, following, parent, openedPaged, totalSize } = options;
  const atEnd = useRef(false);
  useEffect(() => {
    if (!openedPaged.current || rows.length === 0) return;
    let attempts = 0;
    let frame = 0;
    const step = () => {
      const element = parent.current;
      virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
      attempts += 1;
      // Row heights are measured as rows render: repeat until the end stays the end.
      const settled =
        element !== null && element.scrollTop + element.clientHeight >= element.scrollHeight - 2;
      if (settled) atEnd.current = true;
      if (settled || attempts >= 30) openedPaged.current = false;
      else frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [rows, virtualizer, openedPaged, parent]);
  useEffect(() => {
    if (!following && atEnd.current && rows.length > 0) {
      virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
    }
  }, [following, rows, virtualizer]);
  // Rows that grow once measured (a message rendered as Markdown when its renderer arrives) keep
  // a timeline that was at its end there. "At the end" is read from the list itself, against its
  // height before the change: a scroll the list has not reported yet (to the top, say) wins.
  const heldSize = useRef(totalSize);
  useEffect(() => {
    const before = heldSize.current;
    heldSize.current = totalSize;
    const element = parent.current;
    if (following || !atEnd.current || element === null || rows.length === 0) return;
    if (totalSize !== before && element.scrollTop + element.clientHeight >= before - 24) {
      virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
    }
  }, [totalSize, following, rows, virtualizer, parent]);
  return atEnd;
}
