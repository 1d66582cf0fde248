/**
 * The session page's header: title, id, workspace, counts, goal, token chart and actions. Drawn by
 * the page and, before the page's script has run, by the server's first view (same markup).
 */

import { preview, Visible } from "@tapedeck/html-export/render";
import type { ReactNode } from "react";
import { api } from "./api";
import { GoalControl } from "./goal";
import { OriginNote } from "./import-panel";
import type { LiveSession } from "./live-session";

/** Which side panel is open. */
export type PanelMode = "trace" | "lineage" | "closed";

/** What {@link SessionHeader} shows. */
export interface SessionHeaderProps {
  sessionId: string;
  data: Pick<
    LiveSession,
    "header" | "firstPrompt" | "eventCount" | "usage" | "goal" | "hasEarlier"
  >;
  /** The parent's short id (a fork), as the page shows it. */
  parentShortId: string;
  /** The token chart (memoised by the page). */
  chart: ReactNode;
  panel: PanelMode;
  onOpen(sessionId: string, seq?: number): void;
  onContinue(sessionId: string): void;
  onTogglePanel(next: "trace" | "lineage"): void;
}

/** The header above the timeline. */
export function SessionHeader({
  sessionId,
  data,
  parentShortId,
  chart,
  panel,
  onOpen,
  onContinue,
  onTogglePanel,
}: SessionHeaderProps) {
  const title =
    data.firstPrompt ??
    (data.header.parent !== undefined
      ? `Fork of ${parentShortId} at #${data.header.parent.seq}`
      : "(no prompt yet)");
  return (
    <header className="session-header">
      <div className="session-title">
        <h1 data-testid="session-title">{preview(title, 120)}</h1>
        <div className="muted small">
          <code>{data.header.sessionId}</code> · <Visible text={data.header.workspaceId} /> ·{" "}
          {data.eventCount.toLocaleString()} events · {data.usage.inputTokens.toLocaleString()} in /{" "}
          {data.usage.outputTokens.toLocaleString()} out tokens
          <OriginNote origin={data.header.origin} />
          {data.header.parent !== undefined ? (
            <>
              {" "}
              · fork of{" "}
              <button
                type="button"
                className="link"
                onClick={() =>
                  data.header.parent && onOpen(data.header.parent.sessionId, data.header.parent.seq)
                }
              >
                {parentShortId} at #{data.header.parent.seq}
              </button>
            </>
          ) : null}
        </div>
        <GoalControl
          sessionId={sessionId}
          goal={data.goal}
          // The goal/set event arrives on the session stream like any other.
          onChanged={() => undefined}
        />
      </div>
      {chart}
      <div className="actions">
        <button type="button" onClick={() => onContinue(sessionId)}>
          Continue this session
        </button>
        <a className="button" href={api.exportUrl(sessionId)} download={`${sessionId}.jsonl`}>
          Export JSONL
        </a>
        <a
          className="button"
          href={api.exportHtmlUrl(sessionId)}
          download={`${sessionId}.html`}
          title="One self-contained HTML file to read or share: no server, no network"
        >
          Export HTML
        </a>
        <button
          type="button"
          className={panel === "lineage" ? "active" : ""}
          aria-pressed={panel === "lineage"}
          onClick={() => onTogglePanel("lineage")}
        >
          Lineage
        </button>
        <button
          type="button"
          className={panel === "trace" ? "active" : ""}
          aria-pressed={panel === "trace"}
          onClick={() => onTogglePanel("trace")}
        >
          Trace
        </button>
      </div>
    </header>
  );
}
