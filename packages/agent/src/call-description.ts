import path from "node:path";
import { approvalTitle } from "./approval-title";
import { argumentsForDisplay } from "./tool-calls";
import type { AnyAgentTool, ToolKind } from "./tools/agent-tool";
import { type ToolTitle, toolTitle } from "./tools/tool-title";

/** How every surface shows one tool call (run events, ACP updates live and on load). */
export interface ToolCallDescription extends ToolTitle {
  /** Parsed arguments (`{}` for empty text), or the raw text when they are not valid JSON. */
  input: unknown;
  kind: ToolKind | "other";
  /** Absolute paths the call touches (resolved against the run's cwd). */
  locations: string[];
  /** The tool is known and the arguments fit its schema (else title and kind are fallbacks). */
  recognised: boolean;
}

/**
 * The one rule that turns a logged `function_call` (name and arguments text) into what a person
 * sees: the tool's title and kind when the tool is known and the arguments fit its schema, else
 * the call's name and kind `other` (no locations).
 */
export function describeToolCall(
  call: { name: string; arguments: string },
  tools: ReadonlyMap<string, AnyAgentTool>,
  cwd: string,
): ToolCallDescription {
  const input = argumentsForDisplay(call.arguments);
  const tool = tools.get(call.name);
  const parsed = tool?.argsSchema.safeParse(input);
  if (tool === undefined || parsed === undefined || !parsed.success) {
    return { input, ...toolTitle(call.name), kind: "other", locations: [], recognised: false };
  }
  return {
    input,
    ...toolTitle(tool.title(parsed.data)),
    kind: tool.kind,
    locations: tool.locations(parsed.data).map((location) => path.resolve(cwd, location)),
    recognised: true,
  };
}

/**
 * The approval title of a logged `function_call` (see `approvalTitle`: the change a write makes,
 * the `.git/` note), or `undefined` when the tool is unknown or the arguments do not fit its
 * schema (the call's own title stands). What the viewer's card shows, live or reloaded, is what
 * the terminal and the editor asked.
 */
export function describeApproval(
  call: { name: string; arguments: string },
  tools: ReadonlyMap<string, AnyAgentTool>,
  cwd: string,
): ToolTitle | undefined {
  const tool = tools.get(call.name);
  const parsed = tool?.argsSchema.safeParse(argumentsForDisplay(call.arguments));
  if (tool === undefined || parsed === undefined || !parsed.success) return undefined;
  const locations = tool.locations(parsed.data).map((location) => path.resolve(cwd, location));
  return approvalTitle(tool, parsed.data, locations);
}
