/** The main pane when no session is open: a greeting, or how to get a first session. */
import type { ServerConfig } from "./api";

/** The welcome pane; `empty` says there are no sessions yet (then the demo can be loaded). */
export function Welcome({
  empty,
  config,
  demoMessage,
  onLoadDemo,
}: {
  empty: boolean;
  config: ServerConfig | null;
  demoMessage: string | null;
  onLoadDemo(): void;
}) {
  return (
    <div className="page pad welcome" data-testid="welcome">
      {empty ? (
        <>
          <h1>No sessions yet</h1>
          <p>
            Sessions are read from <code>{config?.home ?? "~/.tapedeck"}/sessions</code>. Start one
            with the composer below, run <code>tapedeck run "…"</code>, or connect an editor over
            ACP.
          </p>
          {config?.demoAvailable === true ? (
            <p>
              <button type="button" className="primary" onClick={onLoadDemo}>
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
  );
}
