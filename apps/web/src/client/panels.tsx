/** The side panel: trace of the selected event (with the model-call debug view) or lineage. */

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { eventLabel, modelInput, SeqLink } from "@tapedeck/html-export/render";
import type { ModelRequestEvent, SessionEvent } from "@tapedeck/session";
import { citationLabel, type LineageNode } from "@tapedeck/session-query";
import type { ReactNode } from "react";
import { api } from "./api";
import { rememberShortIds, ShortId } from "./short-ids";
import { LongText, preview } from "./text";

interface Props {
  mode: "trace" | "lineage";
  sessionId: string;
  seq: number | null;
  events: readonly SessionEvent[];
  bySeq: Map<number, SessionEvent>;
  refreshKey: number;
  onOpen(sessionId: string, seq?: number): void;
  onSelectSeq(seq: number | null): void;
}

/** Trace or lineage, beside the timeline. */
export function SidePanel(props: Props) {
  return (
    <aside className="side-panel" data-testid={`${props.mode}-panel`}>
      {props.mode === "trace" ? <TracePanel {...props} /> : <LineagePanel {...props} />}
    </aside>
  );
}

function TracePanel({ sessionId, seq, events, bySeq, onSelectSeq }: Props) {
  // Asked again each time an event is picked (the session may have grown since): stale at once.
  const query = useQuery({
    queryKey: ["trace", sessionId, seq],
    queryFn: () => api.trace(sessionId, seq ?? 0),
    enabled: seq !== null,
    staleTime: 0,
  });
  const trace = query.data ?? null;
  const error = query.error?.message ?? null;

  if (seq === null) {
    return (
      <div className="muted pad">
        <h2>Trace</h2>
        Click the <code>#seq</code> of any event to see its replacement chain, what it cites and the
        events that cite it. On a model call, this shows the exact input the model saw.
      </div>
    );
  }
  const event = bySeq.get(seq);
  const links = {
    href: (target: number) => `?session=${encodeURIComponent(sessionId)}&seq=${target}`,
    onSelectSeq,
  };
  const link = (target: number) => <SeqLink seq={target} links={links} />;
  return (
    <div className="pad">
      <h2>
        Trace of #{seq}{" "}
        <button type="button" className="link" onClick={() => onSelectSeq(null)}>
          close
        </button>
      </h2>
      {event !== undefined ? (
        <div className="muted small">{preview(eventLabel(event), 200)}</div>
      ) : null}
      {error !== null ? <div className="error-box">{error}</div> : null}
      {trace !== null ? (
        <div data-testid="trace">
          <div className="small">
            {trace.visible ? "Visible on the surface now." : "Not on the surface now."}
          </div>
          <h3>Replacement chain</h3>
          <ol className="chain">
            {trace.replacementChain.map((step) => (
              <li key={step.seq}>
                {link(step.seq)} {preview(eventLabel(step.event), 100)}
              </li>
            ))}
          </ol>
          {trace.sources.length > 0 ? (
            <>
              <h3>Cites</h3>
              <ul>
                {trace.sources.map((step) => (
                  <li key={step.seq}>
                    {link(step.seq)} {preview(eventLabel(step.event), 100)}{" "}
                    <span className="muted small">[{citationLabel(step.via)}]</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h3>Cited by</h3>
          {trace.citedBy.length === 0 ? (
            <div className="muted small">Nothing cites this event.</div>
          ) : null}
          <ul>
            {trace.citedBy.map((step) => (
              <li key={step.seq}>
                {link(step.seq)} {step.depth > 1 ? `(depth ${step.depth}) ` : ""}
                {preview(eventLabel(step.event), 100)}{" "}
                <span className="muted small">[{citationLabel(step.via)}]</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {event?.type === "model/request" ? (
        <ModelCall events={events} request={event as ModelRequestEvent} link={link} />
      ) : null}
    </div>
  );
}

/** What the model saw at one `model/request`: its input items, rebuilt from the log. */
function ModelCall({
  events,
  request,
  link,
}: {
  events: readonly SessionEvent[];
  request: ModelRequestEvent;
  link(seq: number): ReactNode;
}) {
  const items = modelInput(events, request);
  // A page of a long session holds its later events only.
  const firstHeld = events[0]?.seq ?? 1;
  return (
    <div data-testid="model-call">
      <h3>Model input ({items.length} items)</h3>
      <div className="muted small">
        {request.provider}:{request.model} · request {request.requestId} · input digest{" "}
        {request.inputDigest}
      </div>
      <ol className="model-input">
        {items.map(({ seq, event }) => (
          <li key={seq}>
            {link(seq)}{" "}
            {event === null && seq < firstHeld ? (
              <span className="muted">earlier in the session (load earlier events to see it)</span>
            ) : event === null ? (
              <span className="error-text">missing from the log</span>
            ) : (
              <LongText text={eventLabel(event)} limit={600} />
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

function LineagePanel({ sessionId, onOpen, refreshKey }: Props) {
  // A live change of the session asks again; the tree on screen stays until the answer.
  const query = useQuery({
    queryKey: ["lineage", sessionId, refreshKey],
    queryFn: async () => {
      const answer = await api.lineage(sessionId);
      rememberShortIds(answer.shortIds);
      return answer;
    },
    placeholderData: keepPreviousData,
  });
  const lineage = query.data ?? null;
  const error = query.error?.message ?? null;
  const node = (id: string, title: string | null, extra: string) => (
    <button
      type="button"
      className={`link${id === sessionId ? " current" : ""}`}
      title={id}
      onClick={() => onOpen(id)}
    >
      <ShortId id={id} /> {preview(title ?? "(no prompt)", 50)} {extra}
    </button>
  );
  const tree = (nodes: LineageNode[]) => (
    <ul className="tree">
      {nodes.map((child) => (
        <li key={child.session.id}>
          {node(child.session.id, child.session.title, `(from #${child.forkSeq})`)}
          {child.children.length > 0 ? tree(child.children) : null}
        </li>
      ))}
    </ul>
  );
  return (
    <div className="pad" data-testid="lineage">
      <h2>Lineage</h2>
      {error !== null ? <div className="error-box">{error}</div> : null}
      {lineage !== null ? (
        <ul className="tree">
          {lineage.spawnedBy !== undefined ? (
            <li data-testid="spawned-by">
              {node(
                lineage.spawnedBy.session.id,
                lineage.spawnedBy.session.title,
                `(sub-agent of it, started at #${lineage.spawnedBy.seq})`,
              )}
            </li>
          ) : null}
          {[...lineage.ancestors].reverse().map((ancestor) => (
            <li key={ancestor.session.id}>
              {node(
                ancestor.session.id,
                ancestor.session.title,
                `(forked at #${ancestor.forkSeq})`,
              )}
            </li>
          ))}
          <li>
            <strong>{node(lineage.session.id, lineage.session.title, "(this session)")}</strong>
            {lineage.descendants.length > 0 ? (
              tree(lineage.descendants)
            ) : (
              <div className="muted small">No forks.</div>
            )}
            {lineage.subAgents !== undefined ? (
              <ul className="tree" data-testid="sub-agents">
                {lineage.subAgents.map((link) => (
                  <li key={link.session.id}>
                    {node(link.session.id, link.session.title, `(sub-agent from #${link.seq})`)}
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        </ul>
      ) : null}
    </div>
  );
}
