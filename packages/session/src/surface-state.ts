import type { SessionEvent } from "./schema";
import { isSurfaceEvent, type SurfaceEntry, toSurfaceItem } from "./surface";

/**
 * The fold of events into the model-visible surface, shared by `Session` (which validates
 * first) and `analyzeEventLog` (which does not). Appending is O(1); a replace is O(surface).
 */
export class SurfaceState {
  private entries: SurfaceEntry[] = [];
  private visible = new Set<number>();
  readonly replacedBy = new Map<number, number>();
  readonly replacedEventSeqs = new Map<number, number[]>();

  /** The visible items, oldest first. */
  get surface(): readonly SurfaceEntry[] {
    return this.entries;
  }

  /** True when the event with this seq is currently on the surface. */
  isVisible(seq: number): boolean {
    return this.visible.has(seq);
  }

  /** Seqs of the visible items, in order. */
  currentSeqs(): number[] {
    return this.entries.map((entry) => entry.seq);
  }

  /** Applies one event. The caller has checked invariant 5 (`replaces`) already. */
  apply(event: SessionEvent): void {
    if (!isSurfaceEvent(event)) return;
    const entry: SurfaceEntry = { seq: event.seq, item: toSurfaceItem(event) };
    if (event.surfaceOp !== "replace" || event.replaces === undefined) {
      this.entries.push(entry);
      this.visible.add(event.seq);
      return;
    }
    const replaced = new Set(event.replaces);
    const next: SurfaceEntry[] = [];
    let placed = false;
    for (const existing of this.entries) {
      if (replaced.has(existing.seq)) {
        if (!placed) {
          next.push(entry);
          placed = true;
        }
        this.visible.delete(existing.seq);
        this.replacedBy.set(existing.seq, event.seq);
      } else {
        next.push(existing);
      }
    }
    if (!placed) next.push(entry);
    this.entries = next;
    this.visible.add(event.seq);
    this.replacedEventSeqs.set(event.seq, [...event.replaces]);
  }
}
