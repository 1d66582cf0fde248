/** The exported session as one React tree, rendered to static HTML by {@link renderSessionHtml}. */
import type { SessionEvent } from "@tapedeck/session";
import type { Lineage, LineageNode } from "@tapedeck/session-query";
import type { ReactNode } from "react";
import { preview, Row, type RowLinks } from "./render/timeline-row";
import { TokenChart } from "./render/token-chart";
import { Visible } from "./render/visible";
import {
  type SessionViewData,
  sessionTitle,
  type TimelineRow,
  tokensPerTurn,
} from "./timeline/timeline";
import { buildTimeline } from "./timeline/timeline-builder";

const anchorLinks: RowLinks = { href: (seq) => `#e-${seq}` };

/** Rows grouped by turn: the seed, then one group per turn. */
function groupByTurn(rows: readonly TimelineRow[]): TimelineRow[][] {
  const groups: TimelineRow[][] = [];
  for (const row of rows) {
    if (row.kind === "turn" || groups.length === 0) groups.push([row]);
    else groups.at(-1)?.push(row);
  }
  return groups;
}

/** Seqs that are not a row of their own (outputs, approvals, responses): anchors for links. */
function anchorsOf(row: TimelineRow, rowSeqs: ReadonlySet<number>): number[] {
  if (row.kind === "tool" && row.output !== null && !rowSeqs.has(row.output.seq))
    return [row.output.seq];
  return [];
}

/** A session id as the page shows it: the host's short id when known, else the whole id. */
const shown = (shortIds: Readonly<Record<string, string>>, id: string) => shortIds[id] ?? id;

function LineageView({
  lineage,
  shortIds,
}: {
  lineage: Lineage;
  shortIds: Readonly<Record<string, string>>;
}) {
  const node = (id: string, title: string | null, extra: string) => (
    <>
      <code>{shown(shortIds, id)}</code> <Visible text={preview(title ?? "(no prompt)", 60)} />{" "}
      <span className="muted small">{extra}</span>
    </>
  );
  const tree = (nodes: LineageNode[]): ReactNode => (
    <ul className="tree">
      {nodes.map((child) => (
        <li key={child.session.id} title={child.session.id}>
          {node(child.session.id, child.session.title, `(from #${child.forkSeq})`)}
          {child.children.length > 0 ? tree(child.children) : null}
        </li>
      ))}
    </ul>
  );
  return (
    <section className="pad" data-testid="lineage">
      <h2>Lineage</h2>
      <ul className="tree">
        {[...lineage.ancestors].reverse().map((ancestor) => (
          <li key={ancestor.session.id} title={ancestor.session.id}>
            {node(ancestor.session.id, ancestor.session.title, `(forked at #${ancestor.forkSeq})`)}
          </li>
        ))}
        <li className="current" title={lineage.session.id}>
          <strong>{node(lineage.session.id, lineage.session.title, "(this session)")}</strong>
          {lineage.descendants.length > 0 ? (
            tree(lineage.descendants)
          ) : (
            <div className="muted small">No forks.</div>
          )}
        </li>
      </ul>
    </section>
  );
}

/** The whole exported page body. */
export function ExportPage({
  view,
  lineage,
  generatedAt,
  shortIds = {},
  image,
}: {
  view: SessionViewData;
  lineage: Lineage | null;
  generatedAt: string;
  /** Short ids of the sessions shown (the host's `shortIds`); an id without one is shown whole. */
  shortIds?: Readonly<Record<string, string>>;
  /** An image attachment's data URL (the page stays one self-contained file). */
  image?: RowLinks["image"];
}) {
  const links: RowLinks = image === undefined ? anchorLinks : { ...anchorLinks, image };
  const replacedBy = new Map(view.replacedBy);
  const rows = buildTimeline(view.events, replacedBy, new Map(view.streamedText));
  const bySeq = new Map<number, SessionEvent>(view.events.map((event) => [event.seq, event]));
  const rowSeqs = new Set(rows.map((row) => row.seq));
  const title =
    sessionTitle(view.events, view.header.parent) ??
    (view.header.parent !== undefined
      ? `Fork of ${shown(shortIds, view.header.parent.sessionId)} at #${view.header.parent.seq}`
      : "(no prompt yet)");
  return (
    <div className="export">
      <header className="session-header export-header">
        <div className="session-title">
          <h1 data-testid="session-title">{preview(title, 160)}</h1>
          <div className="muted small">
            <code>{view.header.sessionId}</code> · <Visible text={view.header.workspaceId} /> ·{" "}
            {view.eventCount.toLocaleString("en-US")} events ·{" "}
            {view.usage.inputTokens.toLocaleString("en-US")} in /{" "}
            {view.usage.outputTokens.toLocaleString("en-US")} out tokens
            {view.header.parent !== undefined
              ? ` · fork of ${view.header.parent.sessionId} at #${view.header.parent.seq}`
              : ""}{" "}
            · exported {generatedAt} by Tapedeck
          </div>
          {view.goal !== null ? (
            <div className="goal" data-testid="session-goal">
              <span className="goal-label">Goal</span> <Visible text={view.goal} />
            </div>
          ) : null}
        </div>
        <TokenChart bars={tokensPerTurn(rows)} href={links.href} />
        <div className="actions">
          <input
            id="search"
            className="search"
            type="search"
            placeholder="Search this session (/)"
            aria-label="Search"
          />
          <span id="search-count" className="muted small" />
          <button type="button" id="expand-all">
            Expand all
          </button>
          <button type="button" id="collapse-all">
            Collapse all
          </button>
        </div>
      </header>
      <div className="session-body export-body">
        <main className="export-timeline" data-testid="timeline">
          {groupByTurn(rows).map((group) => {
            const [head, ...rest] = group;
            if (head === undefined) return null;
            const body = (row: TimelineRow) => (
              <div
                key={`${row.kind}-${row.seq}`}
                className="row-wrap"
                id={rowSeqs.has(row.seq) ? `e-${row.seq}` : undefined}
                data-anchor={row.seq}
              >
                {anchorsOf(row, rowSeqs).map((seq) => (
                  <span key={seq} id={`e-${seq}`} />
                ))}
                <Row row={row} bySeq={bySeq} selected={false} links={links} expanded />
              </div>
            );
            return (
              <details key={head.seq} className="turn" open data-turn={head.turn}>
                <summary>{body(head)}</summary>
                {rest.map(body)}
              </details>
            );
          })}
        </main>
        <aside className="side-panel">
          <div id="trace" className="pad" data-testid="trace">
            <h2>Trace</h2>
            <div className="muted small">
              Click the <code>#seq</code> of any event to see its replacement chain, what it cites
              and the events that cite it.
            </div>
          </div>
          {lineage !== null ? <LineageView lineage={lineage} shortIds={shortIds} /> : null}
        </aside>
      </div>
    </div>
  );
}
