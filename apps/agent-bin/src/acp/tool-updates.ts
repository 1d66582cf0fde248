import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AnyAgentTool } from "@tapedeck/agent";

/** `tool_call` fields (title, kind, locations, raw input) for a call, live or replayed. */
export function toolCallFields(
  callId: string,
  name: string,
  argumentsText: string,
  tools: ReadonlyMap<string, AnyAgentTool>,
  cwd: string,
): acp.ToolCall {
  let input: unknown = argumentsText;
  try {
    input = JSON.parse(argumentsText);
  } catch {
    // keep the raw text
  }
  const tool = tools.get(name);
  const parsed = tool?.argsSchema.safeParse(input);
  if (tool === undefined || parsed === undefined || !parsed.success) {
    return { toolCallId: callId, title: name, kind: "other", rawInput: input };
  }
  return {
    toolCallId: callId,
    title: tool.title(parsed.data),
    kind: tool.kind,
    rawInput: input,
    locations: tool
      .locations(parsed.data)
      .map((location) => ({ path: path.resolve(cwd, location) })),
  };
}
