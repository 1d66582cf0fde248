import type { LiveNotice, StopReason, ToolKind } from "@tapedeck/agent";
import type { ApprovalDecision, ApprovalPolicy, TurnStatus, Usage } from "@tapedeck/session";

/**
 * What a run tells the CLI and the viewer's SSE, in order: the host's projection of the events the
 * run commits (`runEventProjection`; a whole log projects to the same sequence), plus the agent's
 * one live notice, `tool_started`, which no log event records. `run_started` always comes first
 * and `run_finished` last (delivered once the run has released the session); `error` precedes
 * `run_finished` when the run failed.
 */
export type RunEvent = LoggedRunEvent | LiveNotice;

/** A run event projected from a committed log event (every run event but the live notice). */
export type LoggedRunEvent =
  | {
      type: "run_started";
      runId: string;
      sessionId: string;
      resumed: boolean;
      policy: ApprovalPolicy;
      model: string;
      /**
       * Live only (no log event records it): on the first run of a session this home never ran
       * (imported, copied from a team index, sent), which directory it will work in.
       */
      notice?: string;
    }
  | {
      type: "text_delta";
      runId: string;
      /** The model call this text belongs to; one assistant message per request. */
      requestId: string;
      text: string;
    }
  | {
      type: "tool_call";
      runId: string;
      callId: string;
      name: string;
      /** Parsed arguments (or the raw text when they are not valid JSON). */
      input: unknown;
      /** Hidden characters made visible, never cut (see `toolTitle`). */
      title: string;
      hiddenCharacters: boolean;
      kind: ToolKind | "other";
      /** Absolute paths the call touches. */
      locations: string[];
    }
  | {
      type: "tool_result";
      runId: string;
      callId: string;
      name: string;
      output: string;
      isError: boolean;
    }
  | {
      type: "approval_request";
      runId: string;
      callId: string;
      name: string;
      /** The whole command or path, hidden characters made visible and flagged. */
      title: string;
      hiddenCharacters: boolean;
      options: ApprovalDecision[];
    }
  | {
      type: "approval_decision";
      runId: string;
      callId: string;
      decision: ApprovalDecision;
    }
  | {
      type: "compaction";
      runId: string;
      /** seq of the `compaction` event. */
      seq: number;
      summary: string;
      replaces: number[];
    }
  | {
      type: "usage";
      runId: string;
      /** This model call. */
      usage: Usage;
      /** Sum over the run so far (its compaction calls included). */
      total: Usage;
    }
  | {
      type: "run_finished";
      runId: string;
      status: TurnStatus;
      /** Read from the turn's log (`runEventProjection`): the same as the run's result. */
      stopReason: StopReason;
      usage: Usage;
    }
  | { type: "error"; runId: string; code: string; message: string };

/** A run event's type name. */
export type RunEventType = RunEvent["type"];
