/** One session: header, virtualised timeline grouped by turn, and the side panel. */

import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  localBlobSrc,
  type RowLinks,
  type TimelineRow,
  TokenChart,
  type TurnTokens,
  tokensPerTurn,
} from "@tapedeck/html-export/render";
import type { SessionEvent } from "@tapedeck/session";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, api } from "./api";
import { invalidateSession } from "./invalidate";
import { useTurnKeys } from "./keyboard";
import { SidePanel } from "./panels";
import { type PanelMode, SessionHeader } from "./session-header";
import { useShortId } from "./short-ids";
import { Timeline } from "./timeline-list";
import { useLiveSession } from "./use-live-session";

const emptyBySeq = new Map<number, SessionEvent>();

interface Props {
  sessionId: string;
  seq: number | null;
  /** Bumped when the live feed says this session changed: the side panel asks again. */
  refreshKey: number;
  /** A run of this session is in progress: keep its newest turn in view. */
  following?: boolean;
  onSelectSeq(seq: number | null): void;
  onOpen(sessionId: string, seq?: number): void;
  onContinue(sessionId: string): void;
}

/** The session page. */
export function SessionPage({
  sessionId,
  seq,
  refreshKey,
  following = false,
  onSelectSeq,
  onOpen,
  onContinue,
}: Props) {
  const { data, version, error, loadEarlier } = useLiveSession(sessionId, seq);
  const [panel, setPanel] = useState<PanelMode>(() =>
    seq !== null || window.innerWidth >= 1200 ? "trace" : "closed",
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: version marks an append to data
  const rows = useMemo(() => data?.rows ?? [], [data, version]);
  const bySeq = data?.bySeq ?? emptyBySeq;

  const seqHref = useCallback(
    (target: number) => `?session=${encodeURIComponent(sessionId)}&seq=${target}`,
    [sessionId],
  );
  const chart = useTokenChart(rows, seqHref, onSelectSeq);
  // Picking an event (a #seq, a turn with j/k) shows its trace, even if the panel was closed.
  useEffect(() => {
    if (seq !== null) setPanel((current) => (current === "closed" ? "trace" : current));
  }, [seq]);
  useTurnKeys(rows, seq, onSelectSeq);
  const parentShortId = useShortId(data?.header.parent?.sessionId);

  const client = useQueryClient();
  const fork = useMutation({
    mutationFn: (atSeq: number) => api.fork(sessionId, atSeq),
    onSuccess: (forked) => {
      void invalidateSession(client, sessionId);
      onOpen(forked.sessionId);
    },
  });
  const forkError = fork.error?.message ?? null;

  const links: RowLinks = {
    href: seqHref,
    onSelectSeq,
    onFork: (atSeq) => fork.mutate(atSeq),
    image: localBlobSrc,
  };

  if (error !== null) return <SessionError error={error} />;
  if (data === null) return <div className="page muted pad">Loading session…</div>;

  const togglePanel = (next: "trace" | "lineage") =>
    setPanel((current) => (current === next ? "closed" : next));
  return (
    <div className="page">
      <SessionHeader
        sessionId={sessionId}
        data={data}
        parentShortId={parentShortId}
        chart={chart}
        panel={panel}
        onOpen={onOpen}
        onContinue={onContinue}
        onTogglePanel={togglePanel}
      />
      {forkError !== null ? <div className="error-box">{forkError}</div> : null}
      <div className={`session-body${panel === "closed" ? " panel-closed" : ""}`}>
        <Timeline
          rows={rows}
          bySeq={bySeq}
          seq={seq}
          links={links}
          following={following}
          earlier={data.hasEarlier ? data.firstSeq - 1 : 0}
          onLoadEarlier={() => loadEarlier()}
          sessionId={sessionId}
          onOpen={onOpen}
        />
        {panel !== "closed" ? (
          <SidePanel
            mode={panel}
            sessionId={sessionId}
            seq={seq}
            events={data.events}
            bySeq={bySeq}
            onOpen={onOpen}
            onSelectSeq={onSelectSeq}
            refreshKey={refreshKey}
          />
        ) : null}
      </div>
    </div>
  );
}

/**
 * The header's token chart. It has a bar per turn (thousands in a long session): redrawn only when
 * a bar changed, not on each streamed event.
 */
function useTokenChart(
  rows: readonly TimelineRow[],
  seqHref: (seq: number) => string,
  onSelectSeq: (seq: number | null) => void,
) {
  const barsHeld = useRef<TurnTokens[]>([]);
  const tokenBars = useMemo(() => {
    const next = tokensPerTurn(rows);
    if (!sameBars(barsHeld.current, next)) barsHeld.current = next;
    return barsHeld.current;
  }, [rows]);
  const selectSeq = useRef(onSelectSeq);
  selectSeq.current = onSelectSeq;
  return useMemo(
    () => (
      <TokenChart
        bars={tokenBars}
        href={seqHref}
        onSelect={(target) => selectSeq.current(target)}
      />
    ),
    [tokenBars, seqHref],
  );
}

/** Why the session cannot be shown: a damaged log's line and offset, or the error's sentence. */
function SessionError({ error }: { error: Error }) {
  const damaged = error instanceof ApiError && error.status === 422;
  return (
    <div className="page">
      <div className="error-box" data-testid="session-error">
        {damaged ? (
          <>
            <strong>This log is damaged and cannot be shown or exported.</strong>
            <div>
              {error.code} at line {error.line ?? "?"}, byte offset {error.offset ?? "?"}
            </div>
          </>
        ) : null}
        <div>{error.message}</div>
      </div>
    </div>
  );
}

function sameBars(before: readonly TurnTokens[], after: readonly TurnTokens[]): boolean {
  if (before.length !== after.length) return false;
  return before.every((bar, index) => {
    const other = after[index];
    return (
      other !== undefined &&
      bar.seq === other.seq &&
      bar.input === other.input &&
      bar.cached === other.cached &&
      bar.output === other.output
    );
  });
}
