/** The sidebar: search box, filters, sessions (or matching events) with infinite scroll. */
import { useCallback, useEffect, useRef, useState } from "react";
import type { EventFilters, SessionFilters } from "./api";
import { useSearchKey } from "./keyboard";
import { useEventPages, useSessionPages, useWorkspaces } from "./list-queries";
import { FilterRow, type FilterValues } from "./session-filters";
import { HitGroups, SessionItems } from "./session-list-items";

interface Props {
  selected: string | null;
  /** Bumped when the live stream reports changes: reload the first page. */
  refreshKey: number;
  onOpen(sessionId: string, seq?: number): void;
  onEmpty(empty: boolean): void;
}

/** How long the search box waits after a keystroke before it searches. */
const SEARCH_DEBOUNCE_MS = 150;

function useDebounced<T>(value: T, ms: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return current;
}

const noFilters: FilterValues = { workspace: "", status: "", type: "", tool: "", since: "" };

/** What the list asks the server for, from the box and the filter row. */
function filtersOf(q: string, values: FilterValues) {
  const { workspace, status, type, tool, since } = values;
  const sinceIso = since === "" ? undefined : new Date(`${since}T00:00:00Z`).toISOString();
  const sessions: SessionFilters = {
    ...(workspace === "" ? {} : { workspace }),
    ...(status === "" ? {} : { status }),
    ...(sinceIso === undefined ? {} : { since: sinceIso }),
  };
  const events: EventFilters = {
    // The box searches while the user types: the word being typed matches as a prefix.
    ...(q === "" ? {} : { q, prefix: "last" }),
    ...(workspace === "" ? {} : { workspace }),
    ...(type === "" ? {} : { types: type }),
    ...(tool === "" ? {} : { tool }),
    ...(sinceIso === undefined ? {} : { since: sinceIso }),
  };
  // Event mode: any text, event type or tool filter searches events; otherwise sessions are listed.
  return { sessions, events, eventMode: q !== "" || type !== "" || tool !== "" };
}

/** Sessions list with search and filters. */
export function SessionList({ selected, refreshKey, onOpen, onEmpty }: Props) {
  const [text, setText] = useState("");
  const [values, setValues] = useState(noFilters);
  const filters = filtersOf(useDebounced(text.trim(), SEARCH_DEBOUNCE_MS), values);
  const { eventMode } = filters;
  const sessions = useSessionPages(filters.sessions, refreshKey, !eventMode);
  const hits = useEventPages(filters.events, refreshKey, eventMode);
  const workspaces = useWorkspaces(refreshKey).data?.items ?? [];
  const list = eventMode ? hits : sessions;
  const searchBox = useRef<HTMLInputElement>(null);
  useSearchKey(useCallback(() => searchBox.current?.focus(), []));

  // An empty home (no filter, no session) shows what to do next instead of the list.
  const unfiltered = Object.keys(filters.sessions).length === 0;
  const firstSessions = sessions.isPlaceholderData ? undefined : sessions.data?.pages[0];
  useEffect(() => {
    if (unfiltered && firstSessions !== undefined) onEmpty(firstSessions.items.length === 0);
  }, [unfiltered, firstSessions, onEmpty]);

  const sentinel = useMoreOnSight(list.hasNextPage && !list.isFetching, list.fetchNextPage);
  const sessionItems = sessions.data?.pages.flatMap((page) => page.items) ?? [];
  const hitItems = hits.data?.pages.flatMap((page) => page.items) ?? [];
  const shown = eventMode ? hitItems.length : sessionItems.length;
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
      <FilterRow
        values={values}
        onChange={setValues}
        workspaces={workspaces}
        eventMode={eventMode}
      />
      {list.error !== null ? <div className="error-box">{list.error.message}</div> : null}
      <ul className="items" data-testid={eventMode ? "event-hits" : "sessions"}>
        {eventMode ? (
          <HitGroups items={hitItems} {...{ selected, onOpen }} />
        ) : (
          <SessionItems items={sessionItems} {...{ selected, onOpen }} />
        )}
      </ul>
      {!list.isFetching && shown === 0 ? (
        <div className="muted pad">{eventMode ? "No matching events." : "No sessions."}</div>
      ) : null}
      <div ref={sentinel} className="sentinel">
        {list.isFetching ? "Loading…" : list.hasNextPage ? "More…" : ""}
      </div>
    </div>
  );
}

/** A sentinel element that asks for the next page when it scrolls into view (and `ready`). */
function useMoreOnSight(ready: boolean, more: () => unknown) {
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = sentinel.current;
    if (element === null || !ready) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void more();
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ready, more]);
  return sentinel;
}
