import { EventLogCorruptError, type LogLocation } from "./errors";
import {
  emptyInvariantState,
  type InvariantSnapshot,
  invariantError,
  invariantSnapshot,
  isInvariantViolation,
  stepInvariants,
} from "./invariants";
import {
  type ApprovalPolicy,
  logSchemaOf,
  PROCESS_START_EVENT,
  type SessionEvent,
  type SessionHeader,
  type ToolProcess,
  type TurnStartEvent,
  type Usage,
} from "./schema";
import type { SurfaceEntry, SurfaceItem } from "./surface";
import { SurfaceState } from "./surface-state";

/** The turn that has started and not ended yet. */
export interface OpenTurn {
  runId: string;
  /** seq of its `turn/start`. */
  seq: number;
  startedAt: string;
  policy: ApprovalPolicy;
  model: string;
}

/** A `function_call` that has no output yet. */
export interface PendingCall {
  callId: string;
  name: string;
  arguments: string;
  /** seq of the `function_call` event. */
  seq: number;
  runId: string;
  /** The process group the tool started for this call (its `x-process/start` event), if any. */
  process?: ToolProcess;
}

/** An `approval/request` that has no `approval/decision` yet. */
export interface PendingApproval {
  callId: string;
  /** seq of the `approval/request` event. */
  seq: number;
  runId: string;
}

/** Totals over every `model/response` usage in the session. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/**
 * A session replayed from its events, with the same state the live run had. Pure: no model, no
 * tools, no I/O. `append` checks the seven invariants of the log format (`stepInvariants`, the
 * state machine the index keeps too) and either applies the event or throws
 * `EventLogCorruptError`, leaving the session unchanged.
 */
export class Session {
  readonly header: SessionHeader;
  private readonly log: SessionEvent[] = [];
  private turn: OpenTurn | null = null;
  private readonly pending = new Map<string, PendingCall>();
  private readonly approvals = new Map<string, PendingApproval>();
  /** What the seven invariants look at (the same state machine the index keeps). */
  private readonly invariants = emptyInvariantState();
  private readonly surfaceState = new SurfaceState(this.invariants.visible);
  private currentGoal: string | null = null;
  private readonly totals: UsageTotals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
  private turns = 0;

  private constructor(header: SessionHeader) {
    this.header = header;
  }

  /**
   * A detached session from its header and seed events (complete events, seq from 1). For a fork,
   * append the parent's events up to `header.parent.seq` before the child's own (or use
   * `replayEvents`).
   *
   * @throws EventLogCorruptError `BAD_HEADER` when `sessionId` differs from the header's.
   */
  static create(sessionId: string, seed: readonly SessionEvent[], header: SessionHeader): Session {
    if (header.sessionId !== sessionId) {
      throw new EventLogCorruptError(
        "BAD_HEADER",
        `header names session ${header.sessionId}, but the log belongs to session ${sessionId}`,
        { line: 1, offset: 0, sessionId },
      );
    }
    const session = new Session(header);
    for (const event of seed) session.append(event);
    return session;
  }

  /** The session id (from the header). */
  get sessionId(): string {
    return this.header.sessionId;
  }

  /** Every event, in seq order (for a fork: the parent prefix, then its own). Do not mutate. */
  get events(): readonly SessionEvent[] {
    return this.log;
  }

  /** The model-visible history with each item's seq, compactions applied. */
  get surface(): readonly SurfaceEntry[] {
    return this.surfaceState.surface;
  }

  /** The surface items alone, ready to send to a model. */
  history(): SurfaceItem[] {
    return this.surfaceState.surface.map((entry) => entry.item);
  }

  /** Seqs of the visible items, in surface order. */
  get currentSeqs(): number[] {
    return this.surfaceState.currentSeqs();
  }

  /** The open turn, or `null` between turns. */
  get openTurn(): OpenTurn | null {
    return this.turn === null ? null : { ...this.turn };
  }

  /** Calls without output, in call order. */
  get pendingCalls(): PendingCall[] {
    return [...this.pending.values()].map((call) => ({ ...call }));
  }

  /** Approval requests without a decision, in request order. */
  get pendingApprovals(): PendingApproval[] {
    return [...this.approvals.values()].map((approval) => ({ ...approval }));
  }

  /** seq of the last event (0 for an empty session, `parent.seq` for a fork with no events). */
  get lastSeq(): number {
    return this.invariants.last;
  }

  /** Token totals over every model response. */
  get usage(): UsageTotals {
    return { ...this.totals };
  }

  /** The current goal (from the last `goal/set`), or `null`. */
  get goal(): string | null {
    return this.currentGoal;
  }

  /** Number of turns started. */
  get turnCount(): number {
    return this.turns;
  }

  /** seq → seq of the event that replaced it. */
  get replacedBy(): ReadonlyMap<number, number> {
    return this.surfaceState.replacedBy;
  }

  /** replacer seq → seqs it replaced. */
  get replacedEventSeqs(): ReadonlyMap<number, readonly number[]> {
    return this.surfaceState.replacedEventSeqs;
  }

  /** seq of the `function_call` with this call id, if any. */
  callSeq(callId: string): number | undefined {
    return this.invariants.calls.get(callId);
  }

  /**
   * A copy of what the invariants look at now, as JSON (`restoreInvariantState` reads it back):
   * what a writer keeps beside a log to continue it without replaying it.
   */
  invariantSnapshot(): InvariantSnapshot {
    return invariantSnapshot(this.invariants);
  }

  /** True when the event with this seq is on the surface now. */
  isVisible(seq: number): boolean {
    return this.surfaceState.isVisible(seq);
  }

  /**
   * Validates and applies one event.
   *
   * @param location where the event sits in its file, for error messages.
   * @throws EventLogCorruptError on any invariant violation; the session is left unchanged.
   */
  append(event: SessionEvent, location: LogLocation = {}): void {
    const next = stepInvariants(this.invariants, event);
    if (isInvariantViolation(next)) {
      throw invariantError(next, event, this.header.sessionId, location);
    }
    this.apply(event);
  }

  private apply(event: SessionEvent): void {
    this.log.push(event);
    this.surfaceState.apply(event);
    switch (event.type) {
      case "turn/start":
        this.turns += 1;
        this.turn = openTurnOf(event);
        break;
      case "turn/end":
        this.turn = null;
        break;
      case "function_call":
        this.pending.set(event.callId, {
          callId: event.callId,
          name: event.name,
          arguments: event.arguments,
          seq: event.seq,
          runId: event.runId,
        });
        break;
      case "function_call_output":
        this.pending.delete(event.callId);
        break;
      case "approval/request":
        this.approvals.set(event.callId, {
          callId: event.callId,
          seq: event.seq,
          runId: event.runId,
        });
        break;
      case "approval/decision":
        this.approvals.delete(event.callId);
        break;
      case PROCESS_START_EVENT:
        this.recordProcess(event);
        break;
      case "model/response":
        if (event.usage !== undefined) addUsage(this.totals, event.usage);
        break;
      case "goal/set":
        this.currentGoal = event.goal;
        break;
    }
  }

  /** Notes the process group of a pending call; a malformed record is carried and ignored. */
  private recordProcess(event: SessionEvent): void {
    const parsed = logSchemaOf.processStart().safeParse(event);
    if (!parsed.success) return;
    const call = this.pending.get(parsed.data.callId);
    if (call !== undefined) call.process = { ...parsed.data.process };
  }
}

function openTurnOf(event: TurnStartEvent): OpenTurn {
  return {
    runId: event.runId,
    seq: event.seq,
    startedAt: event.ts,
    policy: event.policy,
    model: event.model,
  };
}

function addUsage(totals: UsageTotals, usage: Usage): void {
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cachedInputTokens += usage.cachedInputTokens ?? 0;
}
