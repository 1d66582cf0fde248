/**
 * Traces computed from a replay-validated Session (events) and from session summaries (lineage).
 * Both backends read the session first, so a trace never describes a log that does not replay.
 */
import type { Session, SessionEvent } from "@tapedeck/session";
import { replacementChain } from "@tapedeck/session/core";
import { EventNotFoundError } from "./errors";
import type {
  CitationKind,
  CitingEvent,
  EventTrace,
  Lineage,
  LineageNode,
  SessionSummary,
  SourceEvent,
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

/** One citation: `citer` cites `cited`, and why. */
interface Citation {
  citer: number;
  cited: number;
  via: CitationKind;
}

/**
 * Every citation of a session, explicit and derived (`architecture/contract.md`, "Query"):
 * `sourceEventSeqs` (`source`); a `model/request` is derived from the events in its `inputItems`
 * (`input`); an assistant `message` and a `function_call` cite the `model/request` they answer
 * (`answer`: the latest request of the same run before them). Logs without `model/request`
 * events (imports) only have the explicit ones.
 */
function citationsOf(session: Session): Citation[] {
  const citations: Citation[] = [];
  const latestRequest = new Map<string, number>();
  for (const event of session.events) {
    for (const source of event.sourceEventSeqs ?? []) {
      citations.push({ citer: event.seq, cited: source, via: "source" });
    }
    if (event.type === "model/request") {
      for (const input of event.inputItems) {
        if (input < event.seq) citations.push({ citer: event.seq, cited: input, via: "input" });
      }
      latestRequest.set(event.runId, event.seq);
    } else if (
      (event.type === "message" && event.role === "assistant") ||
      event.type === "function_call"
    ) {
      const request = latestRequest.get(event.runId);
      if (request !== undefined)
        citations.push({ citer: event.seq, cited: request, via: "answer" });
    }
  }
  return citations;
}

/**
 * The trace of the event at `seq`: replacement chain to the visible version, the events it
 * cites, and every event citing it transitively (breadth-first, by depth then seq), through
 * `sourceEventSeqs` and the derived citations of {@link citationsOf}.
 *
 * @throws EventNotFoundError when the session has no such seq.
 */
export function traceSessionEvent(session: Session, seq: number): EventTrace {
  const root = traced(session, seq);
  const chain = replacementChain(session.replacedBy, seq).map((step) => traced(session, step));
  const last = chain[chain.length - 1]!;
  const citers = new Map<number, Citation[]>();
  const sources: SourceEvent[] = [];
  for (const citation of citationsOf(session)) {
    const list = citers.get(citation.cited);
    if (list === undefined) citers.set(citation.cited, [citation]);
    else list.push(citation);
    if (citation.citer === seq && eventAt(session, citation.cited) !== undefined) {
      sources.push({ ...traced(session, citation.cited), via: citation.via });
    }
  }
  const citedBy: CitingEvent[] = [];
  const seen = new Set<number>([seq]);
  let frontier = [seq];
  for (let depth = 1; frontier.length > 0; depth += 1) {
    const next = new Map<number, CitationKind>();
    for (const cited of frontier) {
      for (const { citer, via } of citers.get(cited) ?? []) {
        if (seen.has(citer)) continue;
        seen.add(citer);
        next.set(citer, via);
      }
    }
    const ordered = [...next.keys()].sort((a, b) => a - b);
    for (const citer of ordered) {
      citedBy.push({ ...traced(session, citer), depth, via: next.get(citer) ?? "source" });
    }
    frontier = ordered;
  }
  return {
    sessionId: session.sessionId,
    event: root.event,
    visible: session.isVisible(seq),
    replacementChain: chain,
    current: session.isVisible(last.seq)
      ? { seq: last.seq, event: structuredClone(last.event) }
      : null,
    sources: sources.sort((a, b) => a.seq - b.seq),
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
