/** The session's timeline: a virtualised list (only the rows on screen are in the DOM). */
import { useVirtualizer } from "@tanstack/react-virtual";
import type { TimelineRow } from "@tapedeck/html-export/render";
import { Row, type RowLinks } from "@tapedeck/html-export/render";
import type { SessionEvent } from "@tapedeck/session";
import { useEffect, useLayoutEffect, useRef } from "react";
import { TurnFiles, turnCheckpoints } from "./turn-files";

/** What {@link Timeline} shows. */
export interface TimelineProps {
  rows: TimelineRow[];
  bySeq: Map<number, SessionEvent>;
  seq: number | null;
  links: RowLinks;
  following: boolean;
  /** Events before the first one held (0: the session from its start). */
  earlier: number;
  onLoadEarlier(): void;
  /** The session shown: turns list their changed files and offer restore / rewind. */
  sessionId?: string;
  /** Opens a session (the fork a rewind made). */
  onOpen?(sessionId: string): void;
}

/** A row's height before it is measured. */
const ROW_ESTIMATE_PX = 72;

/** Within this many pixels of the top, scrolling loads the earlier page. */
const LOAD_EARLIER_PX = 400;

function rowIndexOf(rows: TimelineRow[], seq: number): number {
  let best = -1;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (row === undefined) continue;
    if (row.seq === seq || (row.kind === "tool" && row.output?.seq === seq)) return index;
    if (row.seq <= seq) best = index;
  }
  return best;
}

/** "Load earlier events", above a timeline that does not start at the session's start. */
export function LoadEarlier({ earlier, onClick }: { earlier: number; onClick(): void }) {
  if (earlier === 0) return null;
  return (
    <button type="button" className="load-earlier" data-testid="load-earlier" onClick={onClick}>
      Load earlier events ({earlier.toLocaleString()} before #{(earlier + 1).toLocaleString()})
    </button>
  );
}

/** The virtualised list: only the rows on screen are in the DOM. */
export function Timeline({
  rows,
  bySeq,
  seq,
  links,
  following,
  earlier,
  onLoadEarlier,
  sessionId,
  onOpen,
}: TimelineProps) {
  const parent = useRef<HTMLDivElement>(null);
  // A session longer than its first page opens at its newest rows (scroll up for earlier ones),
  // unless a link asked for an event.
  const openedPaged = useRef(earlier > 0 && seq === null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: 8,
    // Opening at the newest rows, the first render already draws them (not the page's first
    // rows, which the scroll below would throw away at once).
    initialOffset: () => (openedPaged.current ? rows.length * ROW_ESTIMATE_PX : 0),
    // Rows are drawn in the first render, before the list has measured its own box.
    initialRect: { width: 0, height: window.innerHeight },
  });
  const drawn = virtualizer.getVirtualItems().length > 0;
  useLayoutEffect(() => {
    if (drawn && performance.getEntriesByName("tapedeck:first-rows").length === 0) {
      performance.mark("tapedeck:first-rows");
    }
  }, [drawn]);
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

  // While a run of this session goes on, its newest turn stays in view as it grows.
  useEffect(() => {
    if (!following || rows.length === 0) return;
    const lastTurn = rows.findLastIndex((row) => row.kind === "turn");
    virtualizer.scrollToIndex(lastTurn >= 0 ? lastTurn : rows.length - 1, { align: "start" });
  }, [following, rows, virtualizer]);

  // Rows added in front (an earlier page) keep the row that was at the top where it was.
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

  // Scrolled to the end, the timeline stays at the end as streamed rows arrive and as rows grow
  // (messages shown plain until the Markdown renderer has loaded, then rendered).
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
  }, [rows, virtualizer]);
  useEffect(() => {
    if (!following && atEnd.current && rows.length > 0) {
      virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
    }
  }, [following, rows, virtualizer]);
  // Rows that grow once measured (a message rendered as Markdown when its renderer arrives) keep
  // a timeline that was at its end there. "At the end" is read from the list itself, against its
  // height before the change: a scroll the list has not reported yet (to the top, say) wins.
  const totalSize = virtualizer.getTotalSize();
  const heldSize = useRef(totalSize);
  useEffect(() => {
    const before = heldSize.current;
    heldSize.current = totalSize;
    const element = parent.current;
    if (following || !atEnd.current || element === null || rows.length === 0) return;
    if (totalSize !== before && element.scrollTop + element.clientHeight >= before - 24) {
      virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
    }
  }, [totalSize, following, rows, virtualizer]);

  const loadEarlier = () => {
    topSeq.current = rows[virtualizer.getVirtualItems()[0]?.index ?? 0]?.seq ?? null;
    onLoadEarlier();
  };
  return (
    <div className="timeline-column">
      <LoadEarlier earlier={earlier} onClick={loadEarlier} />
      <div
        className="timeline"
        ref={parent}
        data-testid="timeline"
        onWheel={(event) => {
          // At the top already, a scroll up fires no scroll event: the wheel asks instead.
          if (earlier > 0 && event.deltaY < 0 && event.currentTarget.scrollTop === 0) loadEarlier();
        }}
        onScroll={(event) => {
          const element = event.currentTarget;
          atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 24;
          if (earlier > 0 && element.scrollTop < LOAD_EARLIER_PX) loadEarlier();
        }}
      >
        <div style={{ height: totalSize, position: "relative", width: "100%" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (row === undefined) return null;
            const selected =
              seq !== null && (row.seq === seq || (row.kind === "tool" && row.output?.seq === seq));
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="row-wrap"
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  width: "100%",
                  transform: `translateY(${item.start}px)`,
                }}
              >
                <Row row={row} bySeq={bySeq} selected={selected} links={links} />
                {row.kind === "turn" && sessionId !== undefined && onOpen !== undefined ? (
                  <TurnFiles
                    sessionId={sessionId}
                    checkpoints={turnCheckpoints(rows, item.index)}
                    onOpen={onOpen}
                  />
                ) : null}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
