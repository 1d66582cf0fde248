import type { SessionEvent } from "./schema";
import { SurfaceState } from "./surface-state";

/** How replacements (compactions) reshaped a log's surface. */
export interface EventLogAnalysis {
  /** seq → the seq of the event that replaced it (follow it repeatedly for chains). */
  replacedBy: Map<number, number>;
  /** replacer seq → the seqs it replaced, as written. */
  replacedEventSeqs: Map<number, number[]>;
  /** The seqs visible on the surface after the last event, in surface order. */
  currentSeqs: number[];
}

/**
 * Folds events (in seq order) and reports replacements and the visible seqs. It does not check
 * invariants; use `replayEvents` for a validated read.
 */
export function analyzeEventLog(events: Iterable<SessionEvent>): EventLogAnalysis {
  const state = new SurfaceState();
  for (const event of events) state.apply(event);
  return {
    replacedBy: new Map(state.replacedBy),
    replacedEventSeqs: new Map(state.replacedEventSeqs),
    currentSeqs: state.currentSeqs(),
  };
}

/**
 * Follows `replacedBy` from `seq` to the version visible now. The first element is `seq` itself;
 * the last is the visible replacer (or the last one in the chain if it was dropped).
 */
export function replacementChain(replacedBy: ReadonlyMap<number, number>, seq: number): number[] {
  const chain = [seq];
  let current = replacedBy.get(seq);
  while (current !== undefined && !chain.includes(current)) {
    chain.push(current);
    current = replacedBy.get(current);
  }
  return chain;
}
