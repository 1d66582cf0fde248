/** The agent composer, the live run it streams, and the "Current run" card. */
import { HIDDEN_CHARACTERS_WARNING, toVisibleText } from "@tapedeck/session";
import { useState } from "react";
import { INPUT_LIMIT } from "../shared/limits";
import type { AgentRun, RunPolicy } from "./agent-run";
import type { ServerConfig } from "./api";
import { FINISHED_STATUSES, type RunState, shownStatus } from "./run-state";
import { ShortId } from "./short-ids";
import { LongText, preview } from "./text";

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

interface ComposerProps {
  config: ServerConfig | null;
  continuing: string | null;
  /** The session open in the page, offered for continuing when the composer would start anew. */
  openSession: string | null;
  onStartNew(): void;
  onContinue(sessionId: string): void;
  agent: AgentRun;
}

/** Input box, banner, the streamed answer, approvals and cancel. */
export function Composer({
  config,
  continuing,
  openSession,
  onStartNew,
  onContinue,
  agent,
}: ComposerProps) {
  const [input, setInput] = useState("");
  const [policy, setPolicy] = useState<RunPolicy>("ask");
  const { run } = agent;
  const busy = run !== null && !FINISHED_STATUSES.has(run.status);
  if (config !== null && !config.model.configured) {
    return (
      <div className="composer disabled" data-testid="composer">
        <strong>The agent composer needs a model.</strong>
        <div>{config.model.message}</div>
        <div className="muted small">The viewer works without one.</div>
      </div>
    );
  }
  const length = input.trim().length;
  const tooLong = length > INPUT_LIMIT;
  const send = () => {
    const text = input.trim();
    if (text === "" || busy || tooLong) return;
    // The text stays until the server has accepted the run: a refused send loses nothing.
    void agent.start(text, continuing, policy, () =>
      setInput((current) => (current.trim() === text ? "" : current)),
    );
  };
  return (
    <div className="composer" data-testid="composer">
      {continuing !== null ? (
        <div className="banner" data-testid="continue-banner">
          Continuing session <ShortId id={continuing} /> ·{" "}
          <button type="button" className="link" onClick={onStartNew}>
            Start new session
          </button>
        </div>
      ) : (
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
      )}
      {run !== null ? (
        <div className="live-run" data-testid="live-run">
          {run.notice !== null ? (
            <div className="small run-notice" data-testid="run-notice">
              {toVisibleText(run.notice).text}
            </div>
          ) : null}
          {run.text !== "" ? <LongText text={run.text} limit={4000} className="live-text" /> : null}
          {run.tools.map((tool) => (
            <div key={tool.callId} className="small">
              tool <code>{tool.name}</code> {preview(tool.title, 80)} — {tool.state}
            </div>
          ))}
          {run.approvals.map((approval) => (
            <div key={approval.callId} className="approval" data-testid="approval">
              <span>
                Allow <code>{approval.name}</code>:{" "}
                {/* Whole and exact: hidden characters shown as escapes, never cut (toVisibleText). */}
                <code className="approval-command" data-testid="approval-command">
                  {toVisibleText(approval.title).text}
                </code>
                ?
                {approval.hiddenCharacters ? (
                  <strong className="approval-warning" data-testid="approval-warning">
                    {" "}
                    ⚠ {HIDDEN_CHARACTERS_WARNING}
                  </strong>
                ) : null}
              </span>
              <button
                type="button"
                onClick={() => void agent.decide(approval.callId, "allow_once")}
              >
                Approve
              </button>
              <button type="button" onClick={() => void agent.decide(approval.callId, "reject")}>
                Deny
              </button>
            </div>
          ))}
          {run.error !== null ? <div className="error-box">{run.error}</div> : null}
        </div>
      ) : null}
      <div className="composer-row">
        <textarea
          aria-label="Message"
          placeholder={continuing !== null ? "Continue the conversation…" : "Start a new session…"}
          value={input}
          onChange={(event) => setInput(event.target.value)}
          aria-describedby="composer-hint"
          onKeyDown={(event) => {
            // Enter sends, Shift+Enter is a new line (and Enter while composing CJK text is not a send).
            if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
            event.preventDefault();
            send();
          }}
        />
        <div className="composer-actions">
          <select
            aria-label="Approval policy"
            value={policy}
            onChange={(event) => setPolicy(event.target.value as RunPolicy)}
          >
            <option value="ask">Ask before writes and commands</option>
            <option value="auto">Run everything</option>
            <option value="deny">Read only</option>
          </select>
          {busy ? (
            <button type="button" onClick={() => void agent.cancel()}>
              Cancel
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={send}
              disabled={input.trim() === "" || tooLong}
            >
              Send
            </button>
          )}
        </div>
      </div>
      <div className="composer-hint" id="composer-hint" data-testid="composer-hint">
        <span>Enter to send · Shift+Enter for a new line</span>
        <span className={tooLong ? "over" : undefined} data-testid="composer-count">
          {tooLong
            ? `Too long to send: ${length.toLocaleString("en-US")} of at most ${INPUT_LIMIT.toLocaleString("en-US")} characters`
            : `${length.toLocaleString("en-US")} / ${INPUT_LIMIT.toLocaleString("en-US")} characters`}
        </span>
      </div>
    </div>
  );
}
