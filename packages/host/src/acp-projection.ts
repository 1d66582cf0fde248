import type * as acp from "@agentclientprotocol/sdk/unstable";
import { type AnyAgentTool, describeToolCall } from "@tapedeck/agent";
import { type ModelRequestEvent, type SessionEvent, toVisibleText } from "@tapedeck/session";

/** Options of {@link acpProjection}. */
export interface AcpProjectionOptions {
  /** The tools of the session's workspace: a call of a known tool gets its title, kind, paths. */
  tools: readonly AnyAgentTool[];
  /** Where the session's tools work (locations are resolved against it). */
  cwd: string;
  /** The client advertised `session.compaction`: show compactions as `compaction_update`. */
  compactionUpdates: boolean;
  /** The model's context window, sent as the `size` of `usage_update`. */
  contextWindow: number;
}

/**
 * The one projection from committed log events to ACP `session/update`s, used for live turns
 * (fed each batch the run commits, `RunHandlers.onCommit`) and for `session/load` (fed the whole
 * log, {@link acpUpdatesOfLog}). Stateful: it follows which model request the events belong to.
 *
 * - a user `message` → `user_message_chunk` (`messageId` = its run);
 * - a text `assistant/chunk` → `agent_message_chunk` (`messageId` = its model request); the
 *   assistant `message` that follows is then already shown, so it adds nothing. A refusal's words
 *   and a message with no streamed text (an imported log without chunks) are shown whole
 *   (`showsAssistantMessage`);
 * - `model/response` with usage → `usage_update` (input + output tokens of that call);
 * - a compaction's own model call (`purpose: "compaction"`) shows nothing: its summary is shown
 *   by the `compaction` event;
 * - `function_call` → `tool_call` (`pending`, described by the agent's `describeToolCall`);
 * - `function_call_output` → `tool_call_update` (`completed` or `failed`, with the output);
 * - `compaction` → `compaction_update`, or a thought for clients without the capability.
 *
 * Not log events, so not here: a tool's `in_progress` status, the title, notices.
 */
export function acpProjection(
  options: AcpProjectionOptions,
): (event: SessionEvent) => acp.SessionUpdate[] {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  let requestId: string | undefined;
  let streamed = false;
  let refusal: string | undefined;
  const compactions = new Set<string>();
  return (event) => {
    switch (event.type) {
      case "model/request":
        if (isCompactionCall(event)) {
          compactions.add(event.requestId);
          return [];
        }
        requestId = event.requestId;
        streamed = false;
        refusal = undefined;
        return [];
      case "assistant/chunk": {
        const text = "text" in event.delta ? event.delta.text : undefined;
        if (typeof text !== "string" || text === "" || compactions.has(event.requestId)) return [];
        streamed = true;
        return [agentText(text, event.requestId)];
      }
      case "model/response":
        if (compactions.has(event.requestId)) return [];
        refusal = event.refusal;
        if (event.usage === undefined) return [];
        return [
          {
            sessionUpdate: "usage_update",
            used: event.usage.inputTokens + event.usage.outputTokens,
            size: options.contextWindow,
          },
        ];
      case "message":
        if (event.role === "user") {
          return [
            {
              sessionUpdate: "user_message_chunk",
              content: { type: "text", text: event.content },
              messageId: event.runId,
            },
          ];
        }
        if (event.role !== "assistant") return [];
        if (!showsAssistantMessage(event.content, streamed && requestId !== undefined, refusal)) {
          return [];
        }
        return [agentText(event.content, requestId ?? `${event.runId}-${event.seq}`)];
      case "function_call":
        return [toolCall(event, tools, options.cwd)];
      case "function_call_output":
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.callId,
            status: event.isError ? "failed" : "completed",
            content: [{ type: "content", content: { type: "text", text: event.output } }],
            rawOutput: { output: event.output, isError: event.isError },
          },
        ];
      case "compaction":
        return [compactionUpdate(String(event.seq), event.summary, options.compactionUpdates)];
      case "turn/start":
      case "turn/end":
        // A new turn's first model request names its own messages.
        requestId = undefined;
        streamed = false;
        refusal = undefined;
        return [];
      default:
        return [];
    }
  };
}

/**
 * A whole log as `session/load` shows it: {@link acpProjection} over every event, with the text
 * chunks of one message joined into one update (a load need not re-stream token by token).
 */
export function acpUpdatesOfLog(
  events: readonly SessionEvent[],
  options: AcpProjectionOptions,
): acp.SessionUpdate[] {
  const project = acpProjection(options);
  return joinTextChunks(events.flatMap((event) => project(event)));
}

/** Consecutive `agent_message_chunk`s of one `messageId` joined into one. */
export function joinTextChunks(updates: readonly acp.SessionUpdate[]): acp.SessionUpdate[] {
  const joined: acp.SessionUpdate[] = [];
  for (const update of updates) {
    const last = joined.at(-1);
    if (
      update.sessionUpdate === "agent_message_chunk" &&
      last?.sessionUpdate === "agent_message_chunk" &&
      last.messageId === update.messageId &&
      last.content.type === "text" &&
      update.content.type === "text"
    ) {
      joined[joined.length - 1] = {
        ...last,
        content: { type: "text", text: last.content.text + update.content.text },
      };
    } else {
      joined.push(update);
    }
  }
  return joined;
}

/**
 * Whether an assistant `message` adds words to what its request's chunks showed, the one rule of
 * both projections: a refusal's words always (they were never streamed), any other message only
 * when none of its request's text was streamed (an imported log without chunks).
 */
export function showsAssistantMessage(
  content: string,
  streamed: boolean,
  refusal: string | undefined,
): boolean {
  if (content === "") return false;
  return content === refusal || !streamed;
}

/** A compaction's summary call (older logs did not say so: it was the one call offering no tools). */
export function isCompactionCall(request: ModelRequestEvent): boolean {
  return request.purpose === "compaction" || request.toolNames?.length === 0;
}

function agentText(text: string, messageId: string): acp.SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, messageId };
}

function toolCall(
  call: { callId: string; name: string; arguments: string },
  tools: ReadonlyMap<string, AnyAgentTool>,
  cwd: string,
): acp.SessionUpdate {
  const description = describeToolCall(call, tools, cwd);
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.callId,
    title: description.title,
    kind: description.kind,
    rawInput: visibleStrings(description.input),
    ...(description.recognised
      ? { locations: description.locations.map((location) => ({ path: location })) }
      : {}),
    status: "pending",
  };
}

/** A compaction as the client can show it. */
export function compactionUpdate(
  id: string,
  summary: string,
  compactionUpdates: boolean,
): acp.SessionUpdate {
  if (compactionUpdates) {
    return {
      sessionUpdate: "compaction_update",
      compactionId: id,
      status: "completed",
      summary: [{ type: "text", text: summary }],
    };
  }
  return {
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: `[Earlier conversation compacted]\n${summary}` },
    messageId: `compaction-${id}`,
  };
}

/**
 * A JSON value with every string made visible (hidden characters as escapes, nothing cut): an
 * editor that shows a command from `rawInput` shows what runs.
 */
export function visibleStrings(value: unknown): unknown {
  if (typeof value === "string") return toVisibleText(value).text;
  if (Array.isArray(value)) return value.map(visibleStrings);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [toVisibleText(key).text, visibleStrings(inner)]),
    );
  }
  return value;
}
