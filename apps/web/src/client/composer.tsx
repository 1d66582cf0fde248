/** The agent composer, the live run it streams, and the "Current run" card. */
import { HIDDEN_CHARACTERS_WARNING, toVisibleText } from "@tapedeck/session";
import { useCallback, useRef, useState } from "react";
import { ApiError, api, postSse, type ServerConfig } from "./api";
import { LongText, preview } from "./text";

/** The run the page is streaming (or last streamed). */
export interface RunState {
  runId: string | null;
  sessionId: string | null;
  /** The session this run continues, if any. */
  continuing: string | null;
  resumed: boolean;
  status: string;
  text: string;
  tools: Array<{ callId: string; name: string; title: string; state: string; output?: string }>;
  approvals: Array<{ callId: string; name: string; title: string; hiddenCharacters: boolean }>;
  error: string | null;
}

type Patch = (run: RunState) => RunState;

/** Starts, follows, answers and cancels runs. */
export function useAgentRun(
  onStarted: (sessionId: string) => void,
  onFinished: (sessionId: string) => void,
) {
  const [run, setRun] = useState<RunState | null>(null);
  const controller = useRef<AbortController | null>(null);
  const update = useCallback(
    (patch: Patch) => setRun((current) => (current === null ? current : patch(current))),
    [],
  );

  const start = useCallback(
    async (input: string, continuing: string | null, policy: string) => {
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      setRun({
        runId: null,
        sessionId: continuing,
        continuing,
        resumed: continuing !== null,
        status: "starting",
        text: "",
        tools: [],
        approvals: [],
        error: null,
      });
      let sessionId = continuing;
      try {
        const body = { input, policy, ...(continuing === null ? {} : { sessionId: continuing }) };
        for await (const message of postSse("/api/agent/stream", body, abort.signal)) {
          const data = JSON.parse(message.data) as Record<string, unknown>;
          switch (message.event) {
            case "run_started":
              sessionId = String(data.sessionId);
              update((r) => ({
                ...r,
                runId: String(data.runId),
                sessionId: String(data.sessionId),
                resumed: data.resumed === true,
                status: "running",
              }));
              onStarted(String(data.sessionId));
              break;
            case "text_delta":
              update((r) => ({ ...r, text: r.text + String(data.text) }));
              break;
            case "tool_call":
              update((r) => ({
                ...r,
                tools: [
                  ...r.tools,
                  {
                    callId: String(data.callId),
                    name: String(data.name),
                    title: String(data.title),
                    state: "pending",
                  },
                ],
              }));
              break;
            case "tool_result":
              update((r) => ({
                ...r,
                tools: r.tools.map((tool) =>
                  tool.callId === data.callId
                    ? {
                        ...tool,
                        state: data.isError === true ? "error" : "done",
                        output: String(data.output),
                      }
                    : tool,
                ),
              }));
              break;
            case "approval_request":
              update((r) => ({
                ...r,
                status: "waiting_approval",
                approvals: [
                  ...r.approvals,
                  {
                    callId: String(data.callId),
                    name: String(data.name),
                    title: String(data.title),
                    hiddenCharacters: data.hiddenCharacters === true,
                  },
                ],
              }));
              break;
            case "approval_decision":
              update((r) => ({
                ...r,
                status: "running",
                approvals: r.approvals.filter((a) => a.callId !== data.callId),
              }));
              break;
            case "run_finished":
              update((r) => ({ ...r, status: String(data.status), approvals: [] }));
              break;
            case "error":
              update((r) => ({
                ...r,
                status: r.runId === null ? "error" : r.status,
                error: `${String(data.code)}: ${String(data.message)}`,
              }));
              break;
          }
        }
      } catch (caught) {
        if (!abort.signal.aborted) {
          const message =
            caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught);
          update((r) => ({ ...r, status: "error", error: message }));
        }
      } finally {
        if (sessionId !== null) onFinished(sessionId);
      }
    },
    [onStarted, onFinished, update],
  );

  const cancel = useCallback(async () => {
    if (run?.runId != null) {
      update((r) => ({ ...r, status: "cancelling" }));
      await api.cancel(run.runId).catch(() => undefined);
    }
  }, [run, update]);

  const decide = useCallback(
    async (callId: string, decision: "allow_once" | "reject") => {
      if (run?.runId == null) return;
      await api.approve(run.runId, callId, decision);
      update((r) => ({
        ...r,
        approvals: r.approvals.filter((a) => a.callId !== callId),
        status: "running",
      }));
    },
    [run, update],
  );

  return { run, start, cancel, decide };
}

const finished = new Set(["completed", "cancelled", "failed", "interrupted", "error"]);

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
        run <code>{run.runId?.slice(0, 8) ?? "…"}</code>
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
              {run.continuing.slice(0, 8)}
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
              {run.sessionId.slice(0, 8)}
            </button>
          </>
        ) : (
          "new session"
        )}
      </div>
      <div className={`status status-${run.status}`} data-testid="run-status">
        {run.status}
      </div>
    </div>
  );
}

interface ComposerProps {
  config: ServerConfig | null;
  continuing: string | null;
  onStartNew(): void;
  agent: ReturnType<typeof useAgentRun>;
}

/** Input box, banner, the streamed answer, approvals and cancel. */
export function Composer({ config, continuing, onStartNew, agent }: ComposerProps) {
  const [input, setInput] = useState("");
  const [policy, setPolicy] = useState("ask");
  const { run } = agent;
  const busy = run !== null && !finished.has(run.status);
  if (config !== null && !config.model.configured) {
    return (
      <div className="composer disabled" data-testid="composer">
        <strong>The agent composer needs a model.</strong>
        <div>{config.model.message}</div>
        <div className="muted small">The viewer works without one.</div>
      </div>
    );
  }
  const send = () => {
    const text = input.trim();
    if (text === "" || busy) return;
    setInput("");
    void agent.start(text, continuing, policy);
  };
  return (
    <div className="composer" data-testid="composer">
      {continuing !== null ? (
        <div className="banner" data-testid="continue-banner">
          Continuing session {continuing.slice(0, 8)} ·{" "}
          <button type="button" className="link" onClick={onStartNew}>
            Start new session
          </button>
        </div>
      ) : null}
      {run !== null ? (
        <div className="live-run" data-testid="live-run">
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
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) send();
          }}
        />
        <div className="composer-actions">
          <select
            aria-label="Approval policy"
            value={policy}
            onChange={(event) => setPolicy(event.target.value)}
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
            <button type="button" className="primary" onClick={send} disabled={input.trim() === ""}>
              Send
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
