/** The sidebar: search box, filters, sessions (or matching events) with infinite scroll. */
import { useCallback, useEffect, useRef, useState } from "react";
import { type AnswerOf, api, type EventFilters, type SessionFilters } from "./api";

import { useSearchKey } from "./keyboard";
import { ago, Highlighted, preview } from "./text";

/** A session as the list shows it (with its short id). */
type SessionSummary = AnswerOf<typeof api.sessions>["items"][number];
/** An event search hit. */
type EventHit = AnswerOf<typeof api.events>["items"][number];

interface Props {
  selected: string | null;
  /** Bumped when the live stream reports changes: reload the first page. */
  refreshKey: number;
  onOpen(sessionId: string, seq?: number): void;
  onEmpty(empty: boolean): void;
}

const eventTypes = ["message", "function_call", "function_call_output", "compaction", "error"];

function useDebounced<T>(value: T, ms: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return current;
}

/** Sessions list with search and filters. */
export function SessionList({ selected, refreshKey, onOpen, onEmpty }: Props) {
  const [text, setText] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [status, setStatus] = useState<NonNullable<SessionFilters["status"]> | "">("");
  const [type, setType] = useState("");
  const [tool, setTool] = useState("");
  const [since, setSince] = useState("");
  const [workspaces, setWorkspaces] = useState<Array<{ id: string; sessions: number }>>([]);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [hits, setHits] = useState<EventHit[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const q = useDebounced(text.trim(), 150);
  const sinceIso = since === "" ? undefined : new Date(`${since}T00:00:00Z`).toISOString();
  // Event mode: any text, event type or tool filter searches events; otherwise sessions are listed.
  const eventMode = q !== "" || type !== "" || tool !== "";
  const generation = useRef(0);
  const searchBox = useRef<HTMLInputElement>(null);
  useSearchKey(useCallback(() => searchBox.current?.focus(), []));

  const sessionFilters: SessionFilters = {
    ...(workspace === "" ? {} : { workspace }),
    ...(status === "" ? {} : { status }),
    ...(sinceIso === undefined ? {} : { since: sinceIso }),
  };
  const eventFilters: EventFilters = {
    // The box searches while the user types: the word being typed matches as a prefix.
    ...(q === "" ? {} : { q, prefix: "last" }),
    ...(workspace === "" ? {} : { workspace }),
    ...(type === "" ? {} : { types: type }),
    ...(tool === "" ? {} : { tool }),
    ...(sinceIso === undefined ? {} : { since: sinceIso }),
  };
  const key = JSON.stringify([eventMode, sessionFilters, eventFilters]);

  const load = useCallback(
    async (next: string | undefined) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const [parsedMode, sessionQuery, eventQuery] = JSON.parse(key) as [
          boolean,
          SessionFilters,
          EventFilters,
        ];
        if (parsedMode) {
          const page = await api.events(eventQuery, next);
          if (mine !== generation.current) return;
          setHits((previous) => (next === undefined ? page.items : [...previous, ...page.items]));
          setCursor(page.nextCursor);
        } else {
          const page = await api.sessions(sessionQuery, next);
          if (mine !== generation.current) return;
          setSessions((previous) =>
            next === undefined ? page.items : [...previous, ...page.items],
          );
          setCursor(page.nextCursor);
          if (next === undefined && Object.keys(sessionQuery).length === 0)
            onEmpty(page.items.length === 0);
        }
      } catch (caught) {
        if (mine === generation.current)
          setError(caught instanceof Error ? caught.message : String(caught));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [key, onEmpty],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey reloads on live changes
  useEffect(() => {
    void load(undefined);
  }, [load, refreshKey]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey reloads on live changes
  useEffect(() => {
    void api
      .workspaces()
      .then((answer) => setWorkspaces(answer.items))
      .catch(() => undefined);
  }, [refreshKey]);

  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = sentinel.current;
    if (element === null || cursor === null) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting) && !loading) void load(cursor);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [cursor, loading, load]);

  return (
    <div className="session-list">
      <input
        ref={searchBox}
        className="search"
        type="search"
        placeholder="Search sessions and events (English, 中文)…"
        aria-label="Search"
        aria-keyshortcuts="/"
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      <div className="filters">
        <select
          aria-label="Workspace"
          value={workspace}
          onChange={(event) => setWorkspace(event.target.value)}
        >
          <option value="">All workspaces</option>
          {workspaces.map((item) => (
            <option key={item.id} value={item.id}>
              {preview(item.id, 40)} ({item.sessions})
            </option>
          ))}
        </select>
        <select
          aria-label="Event type"
          value={type}
          onChange={(event) => setType(event.target.value)}
        >
          <option value="">Any event</option>
          {eventTypes.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {eventMode ? null : (
          <select
            aria-label="Status"
            value={status}
            onChange={(event) => setStatus(event.target.value as typeof status)}
          >
            <option value="">Any status</option>
            <option value="active">active</option>
            <option value="completed">completed</option>
            <option value="interrupted">interrupted</option>
            <option value="imported">imported</option>
            <option value="damaged">damaged</option>
          </select>
        )}
        <input
          aria-label="Tool"
          placeholder="tool"
          value={tool}
          onChange={(event) => setTool(event.target.value)}
        />
        <input
          aria-label="Since"
          type="date"
          value={since}
          onChange={(event) => setSince(event.target.value)}
        />
      </div>
      {error !== null ? <div className="error-box">{error}</div> : null}
      <ul className="items" data-testid={eventMode ? "event-hits" : "sessions"}>
        {eventMode
          ? groupBySession(hits).map((group) => (
              <li key={group.sessionId} className="hit-group" data-session={group.sessionId}>
                <div className="hit-group-title">
                  <span className="item-title">
                    {preview(group.title ?? "(no prompt yet)", 80)}
                  </span>{" "}
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
            ))
          : sessions.map((session) => (
              <li key={session.id}>
                <button
                  type="button"
                  className={`item${session.id === selected ? " selected" : ""}`}
                  onClick={() => onOpen(session.id)}
                  data-session={session.id}
                >
                  <span className="item-title">
                    {preview(session.title ?? "(no prompt yet)", 90)}
                  </span>
                  <span className="item-meta">
                    <span className={`status status-${session.status}`}>{session.status}</span>
                    <span>{preview(session.workspaceId, 32)}</span>
                    <span>{ago(session.updatedAt)}</span>
                    <span>{plural(session.turnCount, "turn")}</span>
                    {session.forkCount > 0 ? (
                      <span>{plural(session.forkCount, "fork")}</span>
                    ) : null}
                    {session.parent !== null ? <span>fork</span> : null}
                  </span>
                </button>
              </li>
            ))}
      </ul>
      {!loading && (eventMode ? hits.length === 0 : sessions.length === 0) ? (
        <div className="muted pad">{eventMode ? "No matching events." : "No sessions."}</div>
      ) : null}
      <div ref={sentinel} className="sentinel">
        {loading ? "Loading…" : cursor !== null ? "More…" : ""}
      </div>
    </div>
  );
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
