import {
  type ApprovalDecision,
  type SessionEvent,
  type SessionEventDraft,
  TapedeckError,
  type Usage,
} from "@tapedeck/session";
import type { SessionWriter } from "@tapedeck/session-store";
import type { LiveNotice } from "./live-notices";
import type { ToolKind } from "./tools/agent-tool";

/** What the surface is asked when a tool call needs a person's approval. */
export interface ApprovalRequest {
  runId: string;
  sessionId: string;
  callId: string;
  name: string;
  /** Parsed arguments. */
  input: unknown;
  /** The whole command or path, hidden characters made visible and flagged (`toolTitle`). */
  title: string;
  /** The raw title held control, escape, bidi or invisible characters (shown as escapes). */
  hiddenCharacters: boolean;
  kind: ToolKind;
  /** Absolute paths the call touches. */
  locations: string[];
  options: ApprovalDecision[];
}

/** Answers an approval request; `signal` aborts when the run is cancelled meanwhile. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** The state one turn's helpers share: where to write, whom to tell, when to stop. */
export interface TurnContext {
  runId: string;
  sessionId: string;
  writer: SessionWriter;
  signal: AbortSignal;
  /** Appends drafts in order (one batch at a time). */
  write(drafts: SessionEventDraft[]): Promise<SessionEvent[]>;
  /** Tells the surface what no log event records (`LiveNotice`); never throws. */
  notice(notice: LiveNotice): void;
}

const cancelledMarker = "tapedeck.error.RunCancelled";
const cancelledSymbol = Symbol.for(cancelledMarker);

/**
 * Thrown inside a turn when it is cancelled (code `RUN_CANCELLED`); `runTurn` turns it into a
 * `cancelled` ending.
 */
export class RunCancelled extends TapedeckError {
  readonly [cancelledSymbol] = true;

  constructor() {
    super("RUN_CANCELLED", "run cancelled");
    this.name = "RunCancelled";
  }

  static override isInstance(error: unknown): error is RunCancelled {
    return TapedeckError.hasMarker(error, cancelledMarker);
  }
}

/**
 * Serializes appends: the writer takes one batch at a time, in call order. `onCommit` sees each
 * batch once written, before the caller's `await` resumes.
 */
export function serialWriter(
  writer: SessionWriter,
  onCommit: (events: SessionEvent[]) => void = () => undefined,
): (drafts: SessionEventDraft[]) => Promise<SessionEvent[]> {
  let chain: Promise<unknown> = Promise.resolve();
  return (drafts) => {
    const next = chain.then(async () => {
      const events = await writer.append(drafts);
      onCommit(events);
      return events;
    });
    chain = next.catch(() => undefined);
    return next;
  };
}

/** Adds `usage` into `total`. */
export function addUsage(total: Usage, usage: Usage | undefined): void {
  if (usage === undefined) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  if (usage.cachedInputTokens !== undefined) {
    total.cachedInputTokens = (total.cachedInputTokens ?? 0) + usage.cachedInputTokens;
  }
}
