import type { SessionEvent } from "./schema";
import { SeqFlags } from "./seq-flags";
import { isSurfaceEvent, type SurfaceEntry, type SurfaceEvent, toSurfaceItem } from "./surface";

/**
 * The fold of events into the model-visible surface, shared by `Session` (which validates
 * first) and `analyzeEventLog` (which does not). Appending is O(1) and allocates nothing (the
 * entries are built on demand); a replace is O(surface).
 */
export class SurfaceState {
  private visibleEvents: SurfaceEvent[] = [];
  private entries: SurfaceEntry[] | undefined = [];
  readonly replacedBy = new Map<number, number>();
  readonly replacedEventSeqs = new Map<number, number[]>();

  /**
   * @param visible the seqs on the surface now, kept up to date here; `Session` passes its
   * invariant state's (which holds the same seqs), so the two share one set.
   */
  constructor(private readonly visible = new SeqFlags()) {}

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
    return this.visible.has(seq);
  }

  /** Seqs of the visible items, in order. */
  currentSeqs(): number[] {
    return this.visibleEvents.map((event) => event.seq);
  }

  /** Applies one event. The caller has checked invariant 5 (`replaces`) already. */
  apply(event: SessionEvent): void {
    if (!isSurfaceEvent(event)) return;
    this.entries = undefined;
    this.visible.add(event.seq);
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
        this.visible.delete(existing.seq);
        this.replacedBy.set(existing.seq, event.seq);
      } else {
        next.push(existing);
      }
    }
    if (!placed) next.push(event);
    this.visibleEvents = next;
    this.replacedEventSeqs.set(event.seq, [...event.replaces]);
  }
}
