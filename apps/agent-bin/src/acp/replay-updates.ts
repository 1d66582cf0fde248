import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AnyAgentTool } from "@tapedeck/agent";
import type { Session, SessionEvent } from "@tapedeck/session";
import { toolCallFields } from "./tool-updates";

/** Options of {@link replayUpdates}. */
export interface ReplayOptions {
  tools: readonly AnyAgentTool[];
  cwd: string;
  /** The client advertised `session.compaction`: show compactions as `compaction_update`. */
  compactionUpdates: boolean;
}

/**
 * The `session/update` payloads that show a whole session again, turn by turn: the user's
 * messages, the agent's text (one chunk per message, `messageId` = the model request), each tool
 * call with its final status and output, and compactions.
 */
export function* replayUpdates(
  session: Session,
  options: ReplayOptions,
): Generator<acp.SessionUpdate> {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  let requestId: string | undefined;
  for (const event of session.events as readonly SessionEvent[]) {
    switch (event.type) {
      case "model/request":
        requestId = event.requestId;
        break;
      case "message":
        if (event.role === "user") {
          yield {
            sessionUpdate: "user_message_chunk",
            content: { type: "text", text: event.content },
            messageId: event.runId,
          };
        } else if (event.role === "assistant") {
          yield {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: event.content },
            messageId: requestId ?? `${event.runId}-${event.seq}`,
          };
        }
        break;
      case "function_call":
        yield {
          sessionUpdate: "tool_call",
          ...toolCallFields(event.callId, event.name, event.arguments, tools, options.cwd),
          status: "pending",
        };
        break;
      case "function_call_output":
        yield {
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: event.isError ? "failed" : "completed",
          content: [{ type: "content", content: { type: "text", text: event.output } }],
          rawOutput: { output: event.output, isError: event.isError },
        };
        break;
      case "compaction":
        yield compactionUpdate(String(event.seq), event.summary, options.compactionUpdates);
        break;
      default:
        break;
    }
  }
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
