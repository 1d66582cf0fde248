import {
  type AnyAgentTool,
  addUsage,
  describeApproval,
  describeToolCall,
  type StopReason,
} from "@tapedeck/agent";
import {
  type ModelResponseEvent,
  normalizeErrorCode,
  type SessionEvent,
  type TurnStatus,
  type Usage,
} from "@tapedeck/session";
import { isCompactionCall, showsAssistantMessage } from "./acp-projection";
import type { LoggedRunEvent } from "./run-events";

/** Options of {@link runEventProjection}. */
export interface RunEventProjectionOptions {
  /** The session the events belong to (`run_started` names it; no event carries it). */
  sessionId: string;
  /**
   * The tools of the session's workspace: a call of a known tool gets its title, kind, paths. Read
   * at the first tool call, so a run may complete the list (its MCP tools) after its start.
   */
  tools: readonly AnyAgentTool[];
  /** Where the session's tools work (locations are resolved against it). */
  cwd: string;
}

/** What the projection remembers of a call: approval requests and outputs name it. */
interface KnownCall {
  name: string;
  title: string;
  hiddenCharacters: boolean;
  /** What its approval asks (the change a write makes), when the tool is known. */
  approval: { title: string; hiddenCharacters: boolean } | undefined;
}

/** What the projection remembers of the turn so far: enough to say why it stopped. */
interface TurnState {
  total: Usage;
  /** The latest answer call's response (compaction calls are not answers). */
  lastResponse: ModelResponseEvent | undefined;
  /** The latest answer asked for tools (no model call came after their outputs). */
  callsAfterResponse: boolean;
}

const emptyTurn = (): TurnState => ({
  total: { inputTokens: 0, outputTokens: 0 },
  lastResponse: undefined,
  callsAfterResponse: false,
});

/**
 * Why a turn stopped, read from its log: `cancelled` for a cancelled (or interrupted) turn; for a
 * completed one `refusal` when its last answer refused, `max_turn_requests` when that answer's
 * calls ran and no model call followed (the loop hit its cap), `max_tokens` when it was cut at
 * the length limit, else `end_turn`. A failed turn says `end_turn` (its `error` event says why).
 */
function stopReasonOf(status: TurnStatus, turn: TurnState): StopReason {
  if (status === "cancelled" || status === "interrupted") return "cancelled";
  if (status === "failed") return "end_turn";
  if (turn.lastResponse?.refusal !== undefined) return "refusal";
  if (turn.callsAfterResponse) return "max_turn_requests";
  return turn.lastResponse?.finishReason === "length" ? "max_tokens" : "end_turn";
}

/**
 * The one projection from committed log events to the run events (`RunEvent`) the CLI prints
 * and the viewer streams (SSE), the sibling of `acpProjection`: `startRun` feeds it the run's
 * first events and each batch the run commits, and a whole log gives the same sequence. Stateful: it follows the model request and
 * the turn the events belong to.
 *
 * - `turn/start` → `run_started`; `turn/end` → `run_finished` (its stop reason read from the
 *   turn, see `stopReasonOf`);
 * - a text `assistant/chunk` → `text_delta`; an assistant `message` → `text_delta` only when it
 *   is a refusal's words or none of its request's text was streamed (an imported log);
 * - a compaction's own model call (`purpose: "compaction"`) shows nothing but its usage in the
 *   run's total; its summary is the `compaction` event → `compaction`;
 * - `model/response` with usage → `usage` (this call and the run's total so far);
 * - `function_call` → `tool_call` (the agent's `describeToolCall`), `approval/request` →
 *   `approval_request` (that call's title), `approval/decision` → `approval_decision`,
 *   `function_call_output` → `tool_result`;
 * - an `error` event → `error`.
 *
 * Not log events, so not here: a tool call starting (`tool_started`, a live notice of the run).
 */
export function runEventProjection(
  options: RunEventProjectionOptions,
): (event: SessionEvent) => LoggedRunEvent[] {
  const state: ProjectionState = {
    options,
    tools: undefined,
    calls: new Map(),
    compactions: new Set(),
    streamed: new Set(),
    requestId: undefined,
    turn: emptyTurn(),
  };
  return (event) => {
    const { runId } = event;
    switch (event.type) {
      case "turn/start":
      case "turn/end":
        return projectTurnEvent(state, event);
      case "model/request":
      case "assistant/chunk":
      case "model/response":
      case "message":
        return projectModelEvent(state, event);
      case "function_call":
      case "approval/request":
      case "approval/decision":
      case "function_call_output":
        return projectToolEvent(state, event);
      case "compaction":
        return [
          {
            type: "compaction",
            runId,
            seq: event.seq,
            summary: event.summary,
            replaces: event.replaces,
          },
        ];
      case "error":
        // An older log's `rate_limit` reads as `RATE_LIMIT`, as a live run reports it today.
        return [
          { type: "error", runId, code: normalizeErrorCode(event.code), message: event.message },
        ];
      default:
        return [];
    }
  };
}

/** What {@link runEventProjection} follows across events. */
interface ProjectionState {
  readonly options: RunEventProjectionOptions;
  /** The workspace's tools by name, read at the first tool call. */
  tools: Map<string, AnyAgentTool> | undefined;
  readonly calls: Map<string, KnownCall>;
  /** Request ids of compaction calls (their text and usage are not the answer's). */
  readonly compactions: Set<string>;
  /** Request ids whose text was streamed as `assistant/chunk`s. */
  readonly streamed: Set<string>;
  /** The current answer call's request id. */
  requestId: string | undefined;
  turn: TurnState;
}

type EventOf<T extends SessionEvent["type"]> = Extract<SessionEvent, { type: T }>;

/** `turn/start` → `run_started`; `turn/end` → `run_finished`. */
function projectTurnEvent(
  state: ProjectionState,
  event: EventOf<"turn/start" | "turn/end">,
): LoggedRunEvent[] {
  const { runId } = event;
  state.requestId = undefined;
  if (event.type === "turn/start") {
    state.turn = emptyTurn();
    return [
      {
        type: "run_started",
        runId,
        sessionId: state.options.sessionId,
        resumed: event.resumed,
        policy: event.policy,
        model: event.model,
      },
    ];
  }
  const stopReason = stopReasonOf(event.status, state.turn);
  const usage = event.usage ?? { ...state.turn.total };
  return [{ type: "run_finished", runId, status: event.status, stopReason, usage }];
}

/** A model call's events → `text_delta` and `usage` (nothing of a compaction's own call). */
function projectModelEvent(
  state: ProjectionState,
  event: EventOf<"model/request" | "assistant/chunk" | "model/response" | "message">,
): LoggedRunEvent[] {
  const { runId } = event;
  const { turn, compactions } = state;
  switch (event.type) {
    case "model/request":
      if (isCompactionCall(event)) {
        compactions.add(event.requestId);
      } else {
        state.requestId = event.requestId;
        turn.callsAfterResponse = false;
      }
      return [];
    case "assistant/chunk": {
      const text = "text" in event.delta ? event.delta.text : undefined;
      if (typeof text !== "string" || text === "" || compactions.has(event.requestId)) return [];
      state.streamed.add(event.requestId);
      return [{ type: "text_delta", runId, requestId: event.requestId, text }];
    }
    case "model/response": {
      addUsage(turn.total, event.usage);
      if (compactions.has(event.requestId)) return [];
      turn.lastResponse = event;
      if (event.usage === undefined) return [];
      return [{ type: "usage", runId, usage: event.usage, total: { ...turn.total } }];
    }
    case "message": {
      if (event.role !== "assistant") return [];
      const id = state.requestId ?? `${runId}-${event.seq}`;
      const response = turn.lastResponse?.requestId === id ? turn.lastResponse : undefined;
      if (!showsAssistantMessage(event.content, state.streamed.has(id), response?.refusal))
        return [];
      return [{ type: "text_delta", runId, requestId: id, text: event.content }];
    }
  }
}

/** A tool call's events → `tool_call`, `approval_request`, `approval_decision`, `tool_result`. */
function projectToolEvent(
  state: ProjectionState,
  event: EventOf<
    "function_call" | "approval/request" | "approval/decision" | "function_call_output"
  >,
): LoggedRunEvent[] {
  const { runId } = event;
  const { calls, options } = state;
  switch (event.type) {
    case "function_call": {
      state.tools ??= new Map(options.tools.map((tool) => [tool.name, tool]));
      const { tools } = state;
      const { recognised: _, ...description } = describeToolCall(event, tools, options.cwd);
      calls.set(event.callId, {
        name: event.name,
        title: description.title,
        hiddenCharacters: description.hiddenCharacters,
        approval: describeApproval(event, tools, options.cwd),
      });
      state.turn.callsAfterResponse = true;
      return [{ type: "tool_call", runId, callId: event.callId, name: event.name, ...description }];
    }
    case "approval/request": {
      const call = calls.get(event.callId);
      return [
        {
          type: "approval_request",
          runId,
          callId: event.callId,
          name: call?.name ?? "",
          title: call?.approval?.title ?? call?.title ?? event.callId,
          hiddenCharacters: call?.approval?.hiddenCharacters ?? call?.hiddenCharacters ?? false,
          options: event.options,
        },
      ];
    }
    case "approval/decision":
      return [{ type: "approval_decision", runId, callId: event.callId, decision: event.decision }];
    case "function_call_output":
      return [
        {
          type: "tool_result",
          runId,
          callId: event.callId,
          name: calls.get(event.callId)?.name ?? "",
          output: event.output,
          isError: event.isError,
        },
      ];
  }
}

/** A whole log as run events: {@link runEventProjection} over every event, in order. */
export function runEventsOfLog(
  events: readonly SessionEvent[],
  options: RunEventProjectionOptions,
): LoggedRunEvent[] {
  const project = runEventProjection(options);
  return events.flatMap((event) => project(event));
}
