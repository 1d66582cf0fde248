import type { ApprovalDecision, ApprovalPolicy, TurnStatus, Usage } from "@tapedeck/session";
import type { ToolKind } from "./tools/agent-tool";

/** Why a run stopped (the ACP `StopReason` values this runtime produces). */
export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

/**
 * What a run tells its surface (ACP, CLI, web SSE), in order. `run_started` always comes first and
 * `run_finished` last; `error` precedes `run_finished` when the run failed.
 */
export type RunEvent =
  | {
      type: "run_started";
      runId: string;
      sessionId: string;
      resumed: boolean;
      policy: ApprovalPolicy;
      model: string;
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
  | { type: "tool_started"; runId: string; callId: string }
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
      /** Sum over the run so far. */
      total: Usage;
    }
  | {
      type: "run_finished";
      runId: string;
      status: TurnStatus;
      stopReason: StopReason;
      usage: Usage;
    }
  | { type: "error"; runId: string; code: string; message: string };

/** A run event's type name. */
export type RunEventType = RunEvent["type"];
