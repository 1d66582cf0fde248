import type { SessionEvent } from "./schema";
import { isSurfaceEvent, type SurfaceEntry, type SurfaceEvent, toSurfaceItem } from "./surface";

/**
 * The fold of events into the model-visible surface, shared by `Session` (which validates
 * first) and `analyzeEventLog` (which does not). Appending is O(1) and allocates nothing (the
 * entries are built on demand); a replace is O(surface).
 */
export class SurfaceState {
  private visibleEvents: SurfaceEvent[] = [];
  /** visibility flag per seq (1 = on the surface now). */
  private flags = new Uint8Array(1024);
  private entries: SurfaceEntry[] | undefined = [];
  readonly replacedBy = new Map<number, number>();
  readonly replacedEventSeqs = new Map<number, number[]>();

  /** The visible items, oldest first. */
  get surface(): readonly SurfaceEntry[] {
    if (this.entries === undefined) {
      this.entries = this.visibleEvents.map((event) => ({
        seq: event.seq,
        item: toSurfaceItem(event),
      }));
    }
    return this.entries;
  }

  /** True when the event with this seq is currently on the surface. */
  isVisible(seq: number): boolean {
    return seq < this.flags.length && this.flags[seq] === 1;
  }

  /** Seqs of the visible items, in order. */
  currentSeqs(): number[] {
    return this.visibleEvents.map((event) => event.seq);
  }

  /** Applies one event. The caller has checked invariant 5 (`replaces`) already. */
  apply(event: SessionEvent): void {
    if (!isSurfaceEvent(event)) return;
    this.entries = undefined;
    this.setFlag(event.seq, 1);
    if (event.surfaceOp !== "replace" || event.replaces === undefined) {
      this.visibleEvents.push(event);
      return;
    }
    const replaced = new Set(event.replaces);
    const next: SurfaceEvent[] = [];
    let placed = false;
    for (const existing of this.visibleEvents) {
      if (replaced.has(existing.seq)) {
        if (!placed) {
          next.push(event);
          placed = true;
        }
        this.setFlag(existing.seq, 0);
        this.replacedBy.set(existing.seq, event.seq);
      } else {
        next.push(existing);
      }
    }
    if (!placed) next.push(event);
    this.visibleEvents = next;
    this.replacedEventSeqs.set(event.seq, [...event.replaces]);
  }

  private setFlag(seq: number, value: 0 | 1): void {
    if (seq >= this.flags.length) {
      let size = this.flags.length * 2;
      while (size <= seq) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.flags);
      this.flags = grown;
    }
    this.flags[seq] = value;
  }
}
