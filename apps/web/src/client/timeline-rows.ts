/** Finding an event's row in the timeline (a tool row also stands for its output event). */
import type { TimelineRow } from "@tapedeck/html-export/render";

/** Whether `row` shows the event `seq` (a tool row shows its call and its output). */
export function rowShowsSeq(row: TimelineRow, seq: number): boolean {
  return row.seq === seq || (row.kind === "tool" && row.output?.seq === seq);
}

/** The index of the row showing `seq`, else of the last row before it; -1 when none is. */
export function rowIndexOf(rows: TimelineRow[], seq: number): number {
  let best = -1;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (row === undefined) continue;
    if (rowShowsSeq(row, seq)) return index;
    if (row.seq <= seq) best = index;
  }
  return best;
}
