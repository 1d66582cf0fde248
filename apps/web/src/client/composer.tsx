/** The agent composer: banner, the live run it streams, input box, policy, send and cancel. */
import { useState } from "react";
import { INPUT_LIMIT } from "../shared/limits";
import type { AgentRun, RunPolicy } from "./agent-run";
import type { ServerConfig } from "./api";
import { ComposerBanner } from "./composer-banner";
import { LiveRun } from "./live-run";
import { FINISHED_STATUSES } from "./run-state";

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
      <ComposerBanner
        continuing={continuing}
        openSession={openSession}
        onStartNew={onStartNew}
        onContinue={onContinue}
      />
      {run !== null ? <LiveRun run={run} agent={agent} /> : null}
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
