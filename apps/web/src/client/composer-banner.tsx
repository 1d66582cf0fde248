/** The line above the composer: which session a send continues, or that it starts a new one. */
import { ShortId } from "./short-ids";

/** The banner; offers the open session for continuing when a send would start anew. */
export function ComposerBanner({
  continuing,
  openSession,
  onStartNew,
  onContinue,
}: {
  continuing: string | null;
  openSession: string | null;
  onStartNew(): void;
  onContinue(sessionId: string): void;
}) {
  if (continuing !== null)
    return (
      <div className="banner" data-testid="continue-banner">
        Continuing session <ShortId id={continuing} /> ·{" "}
        <button type="button" className="link" onClick={onStartNew}>
          Start new session
        </button>
      </div>
    );
  return (
    <div className="banner new-session" data-testid="new-session-banner">
      Sending starts a new session
      {openSession !== null ? (
        <>
          {" "}
          (not <ShortId id={openSession} />, the one open above) ·{" "}
          <button type="button" className="link" onClick={() => onContinue(openSession)}>
            Continue <ShortId id={openSession} /> instead
          </button>
        </>
      ) : null}
    </div>
  );
}
