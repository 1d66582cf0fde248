/** The page: sidebar (current run, sessions), session view or empty state, composer. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { useAgentRun } from "./agent-run";
import { api, type ServerConfig } from "./api";
import { Composer, CurrentRunCard } from "./composer";
import { ImportPanel } from "./import-panel";
import { invalidateLists } from "./invalidate";
import { FINISHED_STATUSES } from "./run-state";
import { SessionList } from "./session-list";
import { SessionPage } from "./session-page";
import { StoragePanel } from "./storage-panel";
import { useTheme } from "./theme";
import { type Route, readRoute, writeRoute } from "./url";

/** The whole app. */
export function App() {
  const [route, setRouteState] = useState<Route>(readRoute);
  const [listKey, setListKey] = useState(0);
  const [sessionKey, setSessionKey] = useState(0);
  const [empty, setEmpty] = useState(false);
  const [continuing, setContinuing] = useState<string | null>(null);
  const routeRef = useRef(route);
  const theme = useTheme();

  const setRoute = useCallback((next: Route) => {
    writeRoute(next, routeRef.current);
    routeRef.current = next;
    setRouteState(next);
  }, []);

  useEffect(() => {
    const onPop = () => {
      routeRef.current = readRoute();
      setRouteState(routeRef.current);
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  // Read once: the home and the model do not change while the server runs.
  const config: ServerConfig | null =
    useQuery({ queryKey: ["config"], queryFn: () => api.config() }).data ?? null;
  const client = useQueryClient();
  const demo = useMutation({
    mutationFn: () => api.loadDemo(),
    onSuccess: () => invalidateLists(client),
  });
  const demoMessage = demo.isSuccess
    ? `Loaded ${demo.data.added.length} demo sessions into the "demo" workspace.`
    : (demo.error?.message ?? null);

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
  }, []);

  const open = useCallback(
    (sessionId: string, seq?: number) => setRoute({ session: sessionId, seq: seq ?? null }),
    [setRoute],
  );
  const onStarted = useCallback(
    (sessionId: string) => {
      // The highlighted session follows the run's sessionId (a new run creates one).
      setContinuing(sessionId);
      if (routeRef.current.session !== sessionId) open(sessionId);
      setListKey((key) => key + 1);
    },
    [open],
  );
  const onFinished = useCallback((sessionId: string) => {
    setListKey((key) => key + 1);
    if (routeRef.current.session === sessionId) setSessionKey((key) => key + 1);
  }, []);
  const agent = useAgentRun(onStarted, onFinished);
  // A run belongs to the server: opening its session (or reloading the page) re-attaches to it.
  const { attach } = agent;
  useEffect(() => {
    if (route.session !== null) void attach(route.session);
  }, [route.session, attach]);
  const onEmpty = useCallback((value: boolean) => setEmpty(value), []);

  return (
    <div className="app">
      <aside className="sidebar">
        <div className="brand">
          <button
            type="button"
            className="link brand-link"
            onClick={() => setRoute({ session: null, seq: null })}
          >
            Tapedeck
          </button>
          <span className="muted small">{config?.home}</span>
          <button
            type="button"
            className="theme-toggle"
            data-testid="theme-toggle"
            onClick={theme.next}
            title="Colour theme: follow the system, light or dark"
          >
            Theme: {theme.theme}
          </button>
        </div>
        <CurrentRunCard run={agent.run} onOpen={open} />
        <ImportPanel />
        <StoragePanel />
        <SessionList
          selected={route.session}
          refreshKey={listKey}
          onOpen={open}
          onEmpty={onEmpty}
        />
      </aside>
      <main className="main">
        {route.session !== null ? (
          <SessionPage
            key={route.session}
            sessionId={route.session}
            seq={route.seq}
            refreshKey={sessionKey}
            following={
              agent.run !== null &&
              agent.run.sessionId === route.session &&
              !FINISHED_STATUSES.has(agent.run.status)
            }
            onSelectSeq={(seq) => setRoute({ session: route.session, seq })}
            onOpen={open}
            onContinue={setContinuing}
          />
        ) : (
          <div className="page pad welcome" data-testid="welcome">
            {empty ? (
              <>
                <h1>No sessions yet</h1>
                <p>
                  Sessions are read from <code>{config?.home ?? "~/.tapedeck"}/sessions</code>.
                  Start one with the composer below, run <code>tapedeck run "…"</code>, or connect
                  an editor over ACP.
                </p>
                {config?.demoAvailable === true ? (
                  <p>
                    <button type="button" className="primary" onClick={() => demo.mutate()}>
                      Load demo sessions
                    </button>{" "}
                    <span className="muted small">
                      copies a few recorded sessions into a <code>demo</code> workspace
                    </span>
                  </p>
                ) : null}
              </>
            ) : (
              <>
                <h1>Tapedeck</h1>
                <p>Pick a session on the left, or search everything you and the agent have done.</p>
              </>
            )}
            {demoMessage !== null ? <p className="muted">{demoMessage}</p> : null}
          </div>
        )}
        <Composer
          config={config}
          continuing={continuing}
          openSession={route.session}
          onStartNew={() => setContinuing(null)}
          onContinue={setContinuing}
          agent={agent}
        />
      </main>
    </div>
  );
}
