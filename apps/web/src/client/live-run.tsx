/** What the composer shows of the run it follows: notice, streamed text, tools, approvals, error. */
import { HIDDEN_CHARACTERS_WARNING, toVisibleText } from "@tapedeck/session";
import type { AgentRun } from "./agent-run";
import type { RunState } from "./run-state";
import { LongText, preview } from "./text";

type Approval = RunState["approvals"][number];

/** One pending approval: the exact command, a warning for hidden characters, Approve and Deny. */
export function ApprovalRow({ approval, agent }: { approval: Approval; agent: AgentRun }) {
  return (
    <div className="approval" data-testid="approval">
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
      <button type="button" onClick={() => void agent.decide(approval.callId, "allow_once")}>
        Approve
      </button>
      <button type="button" onClick={() => void agent.decide(approval.callId, "reject")}>
        Deny
      </button>
    </div>
  );
}

/** The live run above the input box. */
export function LiveRun({ run, agent }: { run: RunState; agent: AgentRun }) {
  return (
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
        <ApprovalRow key={approval.callId} approval={approval} agent={agent} />
      ))}
      {run.error !== null ? <div className="error-box">{run.error}</div> : null}
    </div>
  );
}
