/** The sidebar's "Current run" card. */
import { type RunState, shownStatus } from "./run-state";
import { ShortId } from "./short-ids";

/** The sidebar card: runId, what it continues, status. */
export function CurrentRunCard({
  run,
  onOpen,
}: {
  run: RunState | null;
  onOpen(sessionId: string): void;
}) {
  if (run === null) return null;
  return (
    <div className="run-card" data-testid="current-run">
      <div className="run-card-title">Current run</div>
      <div className="small">
        run <code>{run.runId !== null ? <ShortId id={run.runId} /> : "…"}</code>
      </div>
      <div className="small">
        {run.continuing !== null ? (
          <>
            continuing session{" "}
            <button
              type="button"
              className="link"
              onClick={() => run.continuing && onOpen(run.continuing)}
            >
              <ShortId id={run.continuing} />
            </button>
          </>
        ) : run.sessionId !== null ? (
          <>
            new session{" "}
            <button
              type="button"
              className="link"
              onClick={() => run.sessionId && onOpen(run.sessionId)}
            >
              <ShortId id={run.sessionId} />
            </button>
          </>
        ) : (
          "new session"
        )}
      </div>
      <div className={`status status-${shownStatus(run)}`} data-testid="run-status">
        {shownStatus(run)}
      </div>
    </div>
  );
}
