/** The sidebar's rows: sessions, or event hits grouped per session. */
import type { AnswerOf, api } from "./api";
import { ago, Highlighted, preview } from "./text";

/** A session as the list shows it (with its short id). */
export type SessionSummary = AnswerOf<typeof api.sessions>["items"][number];
/** An event search hit. */
export type EventHit = AnswerOf<typeof api.events>["items"][number];

interface ItemProps<T> {
  items: readonly T[];
  selected: string | null;
  onOpen(sessionId: string, seq?: number): void;
}

/** Sessions, newest first as the server pages them. */
export function SessionItems({ items, selected, onOpen }: ItemProps<SessionSummary>) {
  return items.map((session) => (
    <li key={session.id}>
      <button
        type="button"
        className={`item${session.id === selected ? " selected" : ""}`}
        onClick={() => onOpen(session.id)}
        data-session={session.id}
      >
        <span className="item-title">{preview(session.title ?? "(no prompt yet)", 90)}</span>
        <span className="item-meta">
          <span className={`status status-${session.status}`}>{session.status}</span>
          <span>{preview(session.workspaceId, 32)}</span>
          <span>{ago(session.updatedAt)}</span>
          <span>{plural(session.turnCount, "turn")}</span>
          {session.forkCount > 0 ? <span>{plural(session.forkCount, "fork")}</span> : null}
          {session.parent !== null ? <span>fork</span> : null}
        </span>
      </button>
    </li>
  ));
}

/** Event hits, grouped per session in the order of each session's best hit. */
export function HitGroups({ items, selected, onOpen }: ItemProps<EventHit>) {
  return groupBySession(items).map((group) => (
    <li key={group.sessionId} className="hit-group" data-session={group.sessionId}>
      <div className="hit-group-title">
        <span className="item-title">{preview(group.title ?? "(no prompt yet)", 80)}</span>{" "}
        <span className="muted small">{plural(group.hits.length, "hit")}</span>
      </div>
      <ol className="group-hits">
        {group.hits.map((hit) => (
          <li key={hit.event.seq} className="hit-item">
            <button
              type="button"
              className={`item hit${hit.sessionId === selected ? " selected" : ""}`}
              onClick={() => onOpen(hit.sessionId, hit.event.seq)}
            >
              <span className="item-meta">
                #{hit.event.seq} {hit.event.type}
              </span>
              <Highlighted text={hit.snippet} />
            </button>
          </li>
        ))}
      </ol>
    </li>
  ));
}

/** Hits grouped by session, sessions in the order of their best (first) hit. */
export function groupBySession(
  hits: readonly EventHit[],
): Array<{ sessionId: string; title: string | null; hits: EventHit[] }> {
  const groups = new Map<string, { sessionId: string; title: string | null; hits: EventHit[] }>();
  for (const hit of hits) {
    let group = groups.get(hit.sessionId);
    if (group === undefined) {
      group = { sessionId: hit.sessionId, title: hit.session.title, hits: [] };
      groups.set(hit.sessionId, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
