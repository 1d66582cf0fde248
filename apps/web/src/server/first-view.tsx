/**
 * The session page's first view, drawn by the server into the HTML it sends: the browser paints
 * the session's header and the rows the page opens at before the page's script has arrived. It
 * is the app's own components (header, rows, side panel, composer) given the page's first data,
 * so text goes through the same rule as on the page (React's escaping, hidden characters made
 * visible by `toVisibleText`, messages as plain text until the Markdown renderer has loaded).
 * The script then draws the page into the same element, replacing this markup (marked
 * `data-first-view`) in one commit.
 */

import { QueryClientProvider } from "@tanstack/react-query";
import {
  localBlobSrc,
  Row,
  type RowLinks,
  TokenChart,
  tokensPerTurn,
} from "@tapedeck/html-export/render";
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { AgentRun } from "../client/agent-run";
import { Composer } from "../client/composer";
import { LiveSession } from "../client/live-session";
import { LoadEarlier } from "../client/load-earlier";
import { SidePanel } from "../client/panels";
import { createQueryClient } from "../client/query-client";
import { SessionHeader } from "../client/session-header";
import type { SessionPageAnswer } from "./session-routes";

/**
 * Rows drawn: at least a screenful at the list's row estimate (72 px) plus the page's overscan,
 * so the script's first render replaces them with the same rows.
 */
export const FIRST_VIEW_ROWS = 24;

/**
 * Styles of the first view only (the page's own come from `STYLES` of `@tapedeck/html-export/render`): a session opened
 * at its newest rows starts scrolled to its end without a script (a reversed flex column), and the
 * trace panel is there only where the page opens it (a window 1,200 px wide or more).
 */
export const FIRST_VIEW_STYLES = `
.timeline.first-view.at-end { display: flex; flex-direction: column-reverse; }
.timeline.first-view > div { flex: none; }
@media (max-width: 1199.5px) {
  .session-body.first-view { grid-template-columns: 1fr; }
  .session-body.first-view > .side-panel { display: none; }
}
`;

const ignore = () => undefined;

/** The composer as the page first draws it: no run, no server config yet. */
const NO_RUN: AgentRun = {
  run: null,
  start: async () => undefined,
  attach: async () => undefined,
  cancel: async () => undefined,
  decide: async () => undefined,
};

/**
 * The markup of `#root` for a session opened at its first page (`GET /api/sessions/:id/page`
 * without a `seq`): the rows the page opens at — its newest when the session is longer than the
 * page (the timeline starts scrolled to its end), else its first.
 */
export function renderFirstView(page: SessionPageAnswer): string {
  const data = new LiveSession(page);
  const sessionId = data.header.sessionId;
  const rows = data.rows;
  const earlier = data.hasEarlier ? data.firstSeq - 1 : 0;
  const shown = earlier > 0 ? rows.slice(-FIRST_VIEW_ROWS) : rows.slice(0, FIRST_VIEW_ROWS);
  const href = (seq: number) => `?session=${encodeURIComponent(sessionId)}&seq=${seq}`;
  const links: RowLinks = { href, onSelectSeq: ignore, onFork: ignore, image: localBlobSrc };
  const parent = data.header.parent?.sessionId;
  const parentShortId = parent === undefined ? "" : (page.shortIds[parent] ?? parent);
  const view: ReactNode = (
    <div className="app" data-first-view="">
      <aside className="sidebar" />
      <main className="main">
        <div className="page">
          <SessionHeader
            sessionId={sessionId}
            data={data}
            parentShortId={parentShortId}
            chart={<TokenChart bars={tokensPerTurn(rows)} href={href} />}
            panel="trace"
            onOpen={ignore}
            onContinue={ignore}
            onTogglePanel={ignore}
          />
          <div className="session-body first-view">
            <div className="timeline-column">
              <LoadEarlier earlier={earlier} onClick={ignore} />
              <div
                className={`timeline first-view${earlier > 0 ? " at-end" : ""}`}
                data-testid="timeline"
              >
                <div>
                  {shown.map((row) => (
                    <div key={`${row.kind}-${row.seq}`} className="row-wrap">
                      <Row row={row} bySeq={data.bySeq} selected={false} links={links} />
                    </div>
                  ))}
                </div>
              </div>
            </div>
            <SidePanel
              mode="trace"
              sessionId={sessionId}
              seq={null}
              events={data.events}
              bySeq={data.bySeq}
              refreshKey={0}
              onOpen={ignore}
              onSelectSeq={ignore}
            />
          </div>
        </div>
        <Composer
          config={null}
          continuing={null}
          openSession={sessionId}
          onStartNew={ignore}
          onContinue={ignore}
          agent={NO_RUN}
        />
      </main>
    </div>
  );
  // The app's components ask their queries of a client (none runs here: effects do not). Each
  // query they make starts its cache timer (30 s): cleared once drawn, so that a render neither
  // holds its page's data for 30 s nor keeps a process that only draws from exiting.
  const client = createQueryClient();
  try {
    return renderToStaticMarkup(<QueryClientProvider client={client}>{view}</QueryClientProvider>);
  } finally {
    client.clear();
  }
}
