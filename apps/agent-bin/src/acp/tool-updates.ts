import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { type AnyAgentTool, toolTitle } from "@tapedeck/agent";
import { toVisibleText } from "@tapedeck/session";

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
    return {
      toolCallId: callId,
      title: toolTitle(name).title,
      kind: "other",
      rawInput: visibleStrings(input),
    };
  }
  return {
    toolCallId: callId,
    title: toolTitle(tool.title(parsed.data)).title,
    kind: tool.kind,
    rawInput: visibleStrings(input),
    locations: tool
      .locations(parsed.data)
      .map((location) => ({ path: path.resolve(cwd, location) })),
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
