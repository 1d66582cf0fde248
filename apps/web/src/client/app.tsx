/** The page: sidebar (current run, sessions), session view or empty state, composer. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { useAgentRun } from "./agent-run";
import { api, type ServerConfig } from "./api";
import { Composer } from "./composer";
import { CurrentRunCard } from "./current-run-card";
import { ImportPanel } from "./import-panel";
import { invalidateLists } from "./invalidate";
import { FINISHED_STATUSES } from "./run-state";
import { SessionList } from "./session-list";
import { SessionPage } from "./session-page";
import { SidebarBrand } from "./sidebar-brand";
import { StoragePanel } from "./storage-panel";
import { useRefreshKeys } from "./use-refresh-keys";
import { useRoute } from "./use-route";
import { Welcome } from "./welcome";

/** The whole app. */
export function App() {
  const { route, routeRef, setRoute } = useRoute();
  const { listKey, sessionKey, refreshList, refreshSession } = useRefreshKeys(routeRef);
  const [empty, setEmpty] = useState(false);
  const [continuing, setContinuing] = useState<string | null>(null);

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

  const open = useCallback(
    (sessionId: string, seq?: number) => setRoute({ session: sessionId, seq: seq ?? null }),
    [setRoute],
  );
  const onStarted = useCallback(
    (sessionId: string) => {
      // The highlighted session follows the run's sessionId (a new run creates one).
      setContinuing(sessionId);
      if (routeRef.current.session !== sessionId) open(sessionId);
      refreshList();
    },
    [open, routeRef, refreshList],
  );
  const onFinished = useCallback(
    (sessionId: string) => {
      refreshList();
      refreshSession(sessionId);
    },
    [refreshList, refreshSession],
  );
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
        <SidebarBrand home={config?.home} onHome={() => setRoute({ session: null, seq: null })} />
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
          <Welcome
            empty={empty}
            config={config}
            demoMessage={demoMessage}
            onLoadDemo={() => demo.mutate()}
          />
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
