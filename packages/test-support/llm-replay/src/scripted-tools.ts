import type { ToolDefinition } from "@tapedeck/llm";

/**
 * The definition a scripted recording offers for a tool it calls, when the script does not pass
 * its own `tools`: an object schema that accepts any arguments. Agent tests that send their real
 * tool definitions use `match: "loose"` (tool names must agree, schemas need not), or pass the
 * agent's definitions to `scriptedRecording({ tools })` for `strict`.
 */
export function scriptedTool(name: string): ToolDefinition {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: {}, additionalProperties: true },
  };
}

/** Scripted definitions for tool names, sorted by name (the default `tools` of a script). */
export function scriptedTools(names: Iterable<string>): ToolDefinition[] {
  return [...new Set(names)].sort().map(scriptedTool);
}
