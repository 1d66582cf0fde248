/**
 * The keys that make the session list and the open session read again: bumped when another process
 * appends (the live change feed) and when a run of this page starts or ends.
 */
import { type RefObject, useCallback, useEffect, useState } from "react";
import { api } from "./api";
import type { Route } from "./url";

/** What {@link useRefreshKeys} returns. */
export interface RefreshKeys {
  listKey: number;
  sessionKey: number;
  /** Reads the session list again. */
  refreshList(): void;
  /** Reads the open session again if it is `sessionId`. */
  refreshSession(sessionId: string): void;
}

/** The list's and the open session's refresh keys, following the server's live change feed. */
export function useRefreshKeys(routeRef: RefObject<Route>): RefreshKeys {
  const [listKey, setListKey] = useState(0);
  const [sessionKey, setSessionKey] = useState(0);

  // Sessions and events appended by other processes show up without a reload.
  useEffect(() => {
    const source = api.live({
      changes: ({ changes }) => {
        setListKey((key) => key + 1);
        if (changes.some((change) => change.sessionId === routeRef.current.session))
          setSessionKey((key) => key + 1);
      },
    });
    return () => source.close();
  }, [routeRef]);

  const refreshList = useCallback(() => setListKey((key) => key + 1), []);
  const refreshSession = useCallback(
    (sessionId: string) => {
      if (routeRef.current.session === sessionId) setSessionKey((key) => key + 1);
    },
    [routeRef],
  );
  return { listKey, sessionKey, refreshList, refreshSession };
}
