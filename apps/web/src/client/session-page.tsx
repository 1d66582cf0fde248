/** One session: header, virtualised timeline grouped by turn, and the side panel. */

import type { RowLinks } from "@tapedeck/html-export/render";
import { TokenChart, type TurnTokens, tokensPerTurn } from "@tapedeck/html-export/render";
import type { SessionEvent } from "@tapedeck/session";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, api, subscribeSession } from "./api";
import { firstPage, readyFirstPage } from "./first-page";
import { useTurnKeys } from "./keyboard";
import { LiveSession } from "./live-session";
import { SidePanel } from "./panels";
import { type PanelMode, SessionHeader } from "./session-header";
import { useShortId } from "./short-ids";
import { Timeline } from "./timeline-list";

const emptyBySeq = new Map<number, SessionEvent>();

interface Props {
  sessionId: string;
  seq: number | null;
  /** Bumped when the live feed says this session changed: the side panel asks again. */
  refreshKey: number;
  /** A run of this session is in progress: keep its newest turn in view. */
  following?: boolean;
  onSelectSeq(seq: number | null): void;
  onOpen(sessionId: string, seq?: number): void;
  onContinue(sessionId: string): void;
}

/** The session page. */
export function SessionPage({
  sessionId,
  seq,
  refreshKey,
  following = false,
  onSelectSeq,
  onOpen,
  onContinue,
}: Props) {
  const openedAt = useRef(seq);
  // The page the app's first render already has (prefetched as the script started): the first
  // render draws its rows, and the effect below only subscribes to what follows it.
  const opened = useRef<LiveSession | null>(null);
  const [data, setData] = useState<LiveSession | null>(() => {
    // The prefetched page is taken once; a second run of this initializer (React's StrictMode)
    // keeps what the first took.
    if (opened.current === null) {
      const page = readyFirstPage(sessionId, openedAt.current);
      if (page !== null) opened.current = new LiveSession(page);
    }
    return opened.current;
  });
  /** Bumped when the stream appends to `data` (which grows in place). */
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [panel, setPanel] = useState<PanelMode>(() =>
    seq !== null || window.innerWidth >= 1200 ? "trace" : "closed",
  );
  const [forkError, setForkError] = useState<string | null>(null);
  const [reloadKey, setReloadKey] = useState(0);

  // The session's last page is read once; afterwards its stream delivers only the events after
  // the last one held (from the byte where that page ended), and each batch appends rows. Earlier
  // pages load on request (scrolling to the top, "Load earlier", a link to an earlier seq).
  // A deep link's event is in the first page asked for (one request; the server preloads it).
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey reads the session again
  useEffect(() => {
    let live = true;
    let unsubscribe = () => {};
    const follow = (session: LiveSession) => {
      unsubscribe = subscribeSession(
        sessionId,
        session.lastSeq,
        (events) => {
          const result = session.append(events);
          if (result === "appended") setVersion((value) => value + 1);
          // Events missing between what the page holds and what arrived: read it again.
          else if (result === "gap") setReloadKey((key) => key + 1);
        },
        session.end,
      );
    };
    const held = opened.current;
    opened.current = null;
    if (held !== null) {
      follow(held);
      return () => unsubscribe();
    }
    firstPage(sessionId, openedAt.current)
      .then((page) => {
        if (!live) return;
        const session = new LiveSession(page);
        setData(session);
        setError(null);
        follow(session);
      })
      .catch((caught: unknown) => {
        if (!live) return;
        setData(null);
        setError(caught instanceof Error ? caught : new Error(String(caught)));
      });
    return () => {
      live = false;
      unsubscribe();
    };
  }, [sessionId, reloadKey]);

  const loading = useRef<Promise<void> | null>(null);
  /** Loads the page before the first event held (reaching back to seq `from`, if given). */
  const loadEarlier = useCallback(
    (from?: number) => {
      if (data === null || !data.hasEarlier || loading.current !== null) return;
      const held = data;
      loading.current = api
        .sessionPage(sessionId, {
          before: held.firstSeq,
          ...(held.start === null ? {} : { beforeOffset: held.start }),
          ...(from === undefined ? {} : { from }),
        })
        .then((page) => {
          if (held.prepend(page) === "prepended") setVersion((value) => value + 1);
          else setReloadKey((key) => key + 1);
        })
        .catch((caught: unknown) => {
          setData(null);
          setError(caught instanceof Error ? caught : new Error(String(caught)));
        })
        .finally(() => {
          loading.current = null;
        });
    },
    [data, sessionId],
  );
  // A link to an event before the first one held loads everything from its turn on.
  useEffect(() => {
    if (seq !== null && data !== null && seq < data.firstSeq) loadEarlier(seq);
  }, [seq, data, loadEarlier]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: version marks an append to data
  const rows = useMemo(() => data?.rows ?? [], [data, version]);
  const bySeq = data?.bySeq ?? emptyBySeq;

  const seqHref = useCallback(
    (target: number) => `?session=${encodeURIComponent(sessionId)}&seq=${target}`,
    [sessionId],
  );
  // The chart has a bar per turn (thousands in a long session): redrawn only when a bar changed,
  // not on each streamed event.
  const barsHeld = useRef<TurnTokens[]>([]);
  const tokenBars = useMemo(() => {
    const next = tokensPerTurn(rows);
    if (!sameBars(barsHeld.current, next)) barsHeld.current = next;
    return barsHeld.current;
  }, [rows]);
  const selectSeq = useRef(onSelectSeq);
  selectSeq.current = onSelectSeq;
  const chart = useMemo(
    () => (
      <TokenChart
        bars={tokenBars}
        href={seqHref}
        onSelect={(target) => selectSeq.current(target)}
      />
    ),
    [tokenBars, seqHref],
  );
  // Picking an event (a #seq, a turn with j/k) shows its trace, even if the panel was closed.
  useEffect(() => {
    if (seq !== null) setPanel((current) => (current === "closed" ? "trace" : current));
  }, [seq]);
  useTurnKeys(rows, seq, onSelectSeq);
  const parentShortId = useShortId(data?.header.parent?.sessionId);

  const fork = async (atSeq: number) => {
    setForkError(null);
    try {
      const forked = await api.fork(sessionId, atSeq);
      onOpen(forked.sessionId);
    } catch (caught) {
      setForkError(caught instanceof Error ? caught.message : String(caught));
    }
  };

  const links: RowLinks = { href: seqHref, onSelectSeq, onFork: (atSeq) => void fork(atSeq) };

  if (error !== null) {
    const damaged = error instanceof ApiError && error.status === 422;
    return (
      <div className="page">
        <div className="error-box" data-testid="session-error">
          {damaged ? (
            <>
              <strong>This log is damaged and cannot be shown or exported.</strong>
              <div>
                {error.code} at line {error.line ?? "?"}, byte offset {error.offset ?? "?"}
              </div>
            </>
          ) : null}
          <div>{error.message}</div>
        </div>
      </div>
    );
  }
  if (data === null) return <div className="page muted pad">Loading session…</div>;

  const togglePanel = (next: "trace" | "lineage") =>
    setPanel((current) => (current === next ? "closed" : next));
  return (
    <div className="page">
      <SessionHeader
        sessionId={sessionId}
        data={data}
        parentShortId={parentShortId}
        chart={chart}
        panel={panel}
        onOpen={onOpen}
        onContinue={onContinue}
        onTogglePanel={togglePanel}
      />
      {forkError !== null ? <div className="error-box">{forkError}</div> : null}
      <div className={`session-body${panel === "closed" ? " panel-closed" : ""}`}>
        <Timeline
          rows={rows}
          bySeq={bySeq}
          seq={seq}
          links={links}
          following={following}
          earlier={data.hasEarlier ? data.firstSeq - 1 : 0}
          onLoadEarlier={() => loadEarlier()}
          sessionId={sessionId}
          onOpen={onOpen}
        />
        {panel !== "closed" ? (
          <SidePanel
            mode={panel}
            sessionId={sessionId}
            seq={seq}
            events={data.events}
            bySeq={bySeq}
            onOpen={onOpen}
            onSelectSeq={onSelectSeq}
            refreshKey={refreshKey}
          />
        ) : null}
      </div>
    </div>
  );
}

function sameBars(before: readonly TurnTokens[], after: readonly TurnTokens[]): boolean {
  if (before.length !== after.length) return false;
  return before.every((bar, index) => {
    const other = after[index];
    return (
      other !== undefined &&
      bar.seq === other.seq &&
      bar.input === other.input &&
      bar.cached === other.cached &&
      bar.output === other.output
    );
  });
}
