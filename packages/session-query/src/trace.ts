/**
 * Traces computed from a replay-validated Session (events) and from session summaries (lineage).
 * Both backends read the session first, so a trace never describes a log that does not replay.
 */
import { replacementChain, type Session, type SessionEvent } from "@tapedeck/session";
import { EventNotFoundError } from "./errors";
import type {
  CitingEvent,
  EventTrace,
  Lineage,
  LineageNode,
  SessionSummary,
  TracedEvent,
} from "./query-engine";

function eventAt(session: Session, seq: number): SessionEvent | undefined {
  const events = session.events;
  const guess = events[seq - 1];
  if (guess?.seq === seq) return guess;
  return events.find((event) => event.seq === seq);
}

function traced(session: Session, seq: number): TracedEvent {
  const event = eventAt(session, seq);
  if (event === undefined) throw new EventNotFoundError(session.sessionId, seq);
  return { seq, event: structuredClone(event) };
}

/**
 * The trace of the event at `seq`: replacement chain to the visible version, the events it
 * cites, and every event citing it transitively (breadth-first, by depth then seq).
 *
 * @throws EventNotFoundError when the session has no such seq.
 */
export function traceSessionEvent(session: Session, seq: number): EventTrace {
  const root = traced(session, seq);
  const chain = replacementChain(session.replacedBy, seq).map((step) => traced(session, step));
  const last = chain[chain.length - 1]!;
  const citers = new Map<number, number[]>();
  for (const event of session.events) {
    for (const source of event.sourceEventSeqs ?? []) {
      const list = citers.get(source);
      if (list === undefined) citers.set(source, [event.seq]);
      else list.push(event.seq);
    }
  }
  const citedBy: CitingEvent[] = [];
  const seen = new Set<number>([seq]);
  let frontier = [seq];
  for (let depth = 1; frontier.length > 0; depth += 1) {
    const next: number[] = [];
    for (const cited of frontier) {
      for (const citer of citers.get(cited) ?? []) {
        if (seen.has(citer)) continue;
        seen.add(citer);
        next.push(citer);
      }
    }
    next.sort((a, b) => a - b);
    for (const citer of next) citedBy.push({ ...traced(session, citer), depth });
    frontier = next;
  }
  return {
    sessionId: session.sessionId,
    event: root.event,
    visible: session.isVisible(seq),
    replacementChain: chain,
    current: session.isVisible(last.seq)
      ? { seq: last.seq, event: structuredClone(last.event) }
      : null,
    sources: (root.event.sourceEventSeqs ?? [])
      .filter((source) => eventAt(session, source) !== undefined)
      .map((source) => traced(session, source)),
    citedBy,
  };
}

/** What lineage needs from a backend: summaries within the caller's scope. */
export interface LineageSource {
  /** The summary of a session in scope, or `null` when missing or out of scope. */
  summary(sessionId: string): Promise<SessionSummary | null>;
  /** Direct forks in scope, oldest first. */
  children(sessionId: string): Promise<SessionSummary[]>;
}

/** Deepest lineage followed in either direction (a guard against reference cycles). */
const maxDepth = 1000;

/** Ancestors (nearest first) and the descendant tree of `session`. */
export async function buildLineage(
  session: SessionSummary,
  source: LineageSource,
): Promise<Lineage> {
  const ancestors: Lineage["ancestors"] = [];
  const seen = new Set<string>([session.id]);
  let current = session;
  while (current.parent !== null && ancestors.length < maxDepth) {
    const parent = await source.summary(current.parent.sessionId);
    if (parent === null || seen.has(parent.id)) break;
    seen.add(parent.id);
    ancestors.push({ session: parent, forkSeq: current.parent.seq });
    current = parent;
  }
  const visited = new Set<string>([session.id]);
  const descend = async (id: string, depth: number): Promise<LineageNode[]> => {
    if (depth >= maxDepth) return [];
    const nodes: LineageNode[] = [];
    for (const child of await source.children(id)) {
      if (visited.has(child.id)) continue;
      visited.add(child.id);
      nodes.push({
        session: child,
        forkSeq: child.parent?.seq ?? 0,
        children: await descend(child.id, depth + 1),
      });
    }
    return nodes;
  };
  return { session, ancestors, descendants: await descend(session.id, 0) };
}
