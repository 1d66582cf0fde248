/**
 * What the exported page needs to show the trace of any event without a server: per event its
 * one-line label, the events it cites (`sourceEventSeqs`) and the compaction that replaced it. The
 * page's script follows replacements and inverts citations (transitively) the way
 * `traceSessionEvent` in @tapedeck/session-query does.
 */
import type { SessionEvent } from "@tapedeck/session";
import { preview } from "./render/timeline-row";
import { eventLabel } from "./timeline/timeline";

/** One event in the export's trace data: `[seq, label, sources, replacedBy]`. */
export type TraceEntry = [number, string, number[], number | null];

/** The trace data of a session. */
export function traceData(
  events: readonly SessionEvent[],
  replacedBy: ReadonlyMap<number, number>,
): TraceEntry[] {
  return events.map((event) => [
    event.seq,
    preview(eventLabel(event), 160),
    [...(event.sourceEventSeqs ?? [])],
    replacedBy.get(event.seq) ?? null,
  ]);
}

/** JSON safe to put inside `<script type="application/json">` (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
