/** The session's timeline: a virtualised list (only the rows on screen are in the DOM). */

import { useVirtualizer, type VirtualItem } from "@tanstack/react-virtual";
import type { TimelineRow } from "@tapedeck/html-export/render";
import { Row, type RowLinks } from "@tapedeck/html-export/render";
import type { SessionEvent } from "@tapedeck/session";
import { useRef } from "react";
import { LoadEarlier } from "./load-earlier";
import { rowShowsSeq } from "./timeline-rows";
import {
  type TimelineVirtualizer,
  useFirstRowsMark,
  useFollowNewestTurn,
  useKeepTopRow,
  useScrollToSeq,
  useStayAtEnd,
} from "./timeline-scroll";
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

/** One drawn row, placed where the virtualiser puts it; a turn lists its changed files. */
function TimelineItem({
  item,
  virtualizer,
  props,
}: {
  item: VirtualItem;
  virtualizer: TimelineVirtualizer;
  props: TimelineProps;
}) {
  const { rows, bySeq, seq, links, sessionId, onOpen } = props;
  const row = rows[item.index];
  if (row === undefined) return null;
  const selected = seq !== null && rowShowsSeq(row, seq);
  return (
    <div
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
}

/** The virtualised list: only the rows on screen are in the DOM. */
export function Timeline(props: TimelineProps) {
  const { rows, seq, following, earlier, onLoadEarlier } = props;
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
  useFirstRowsMark(virtualizer.getVirtualItems().length > 0);
  useScrollToSeq(seq, rows, virtualizer);
  useFollowNewestTurn(following, rows, virtualizer);
  const topSeq = useKeepTopRow(rows, virtualizer);
  const totalSize = virtualizer.getTotalSize();
  const atEnd = useStayAtEnd({ rows, virtualizer, following, parent, openedPaged, totalSize });

  const loadEarlier = () => {
    // The row at the list's top now, read from the list's own scroll offset: a scroll handler runs
    // before the virtualiser has heard of that scroll, so its items can still be the old view's
    // (a jump to the top would keep a row from the end).
    const top = virtualizer.getVirtualItemForOffset(parent.current?.scrollTop ?? 0);
    topSeq.current = rows[top?.index ?? 0]?.seq ?? null;
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
          {virtualizer.getVirtualItems().map((item) => (
            <TimelineItem key={item.key} item={item} virtualizer={virtualizer} props={props} />
          ))}
        </div>
      </div>
    </div>
  );
}
