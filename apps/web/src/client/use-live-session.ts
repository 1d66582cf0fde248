/**
 * The open session's data: its first page (prefetched as the script started, or asked for), then
 * grown by its stream and by earlier pages on request. Kept outside TanStack Query on purpose: the
 * page is one `LiveSession` that the session stream grows in place (each event appends its rows;
 * a cache entry replaced per event would rebuild the timeline), and its first page comes from the
 * server's HTML before any query could run.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { type ApiError, api, subscribeSession } from "./api";
import { firstPage, readyFirstPage } from "./first-page";
import { LiveSession } from "./live-session";

/** What {@link useLiveSession} returns. */
export interface LiveSessionState {
  data: LiveSession | null;
  /** Bumped when the stream or an earlier page grew `data` (which grows in place). */
  version: number;
  error: ApiError | Error | null;
  /** Loads the page before the first event held (reaching back to seq `from`, if given). */
  loadEarlier(from?: number): void;
}

const asError = (caught: unknown) => (caught instanceof Error ? caught : new Error(String(caught)));

/**
 * The session's last page is read once; afterwards its stream delivers only the events after the
 * last one held (from the byte where that page ended), and each batch appends rows. Earlier pages
 * load on request (scrolling to the top, "Load earlier", a link to an earlier seq). A deep link's
 * event is in the first page asked for (one request; the server preloads it).
 */
export function useLiveSession(sessionId: string, seq: number | null): LiveSessionState {
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
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [reloadKey, setReloadKey] = useState(0);

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
        setError(asError(caught));
      });
    return () => {
      live = false;
      unsubscribe();
    };
  }, [sessionId, reloadKey]);

  const loading = useRef<Promise<void> | null>(null);
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
          setError(asError(caught));
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

  return { data, version, error, loadEarlier };
}
