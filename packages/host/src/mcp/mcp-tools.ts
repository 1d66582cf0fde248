/**
 * An MCP server's tools as agent tools: named `mcp__<server>__<tool>`, described and shaped as the
 * server says, under the approval policy (a tool the server marks `readOnlyHint` counts as a read
 * and runs without asking under `ask`; any other asks first), and answered as text.
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { type AgentTool, ToolError } from "@tapedeck/agent";
import { z } from "zod";

/** Longest tool name the OpenAI APIs accept. */
const MAX_TOOL_NAME = 64;
/** Characters of a server-written description kept. */
const MAX_DESCRIPTION = 2000;

/** `mcp__<server>__<tool>` with anything outside `[A-Za-z0-9_-]` replaced, at most 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_TOOL_NAME);
}

/** What a tool call needs from its server's connection. */
export interface McpToolCaller {
  /** Calls the tool; rejects with a message for the model when the server fails. */
  call(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult>;
}

/** A tool result as the text the model reads. */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const part of result.content ?? []) {
    switch (part.type) {
      case "text":
        parts.push(part.text);
        break;
      case "image":
      case "audio":
        parts.push(
          `[${part.type} ${part.mimeType}, ${Math.round((part.data.length * 3) / 4)} bytes]`,
        );
        break;
      case "resource":
        parts.push(
          "text" in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`,
        );
        break;
      case "resource_link":
        parts.push(`[resource ${part.uri}${part.name === undefined ? "" : ` ${part.name}`}]`);
        break;
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  return parts.join("\n");
}

function parametersOf(tool: Tool): Record<string, unknown> {
  const { $schema: _, ...schema } = tool.inputSchema as Record<string, unknown>;
  return { ...schema, type: "object" };
}

/** One server tool as an agent tool. */
export function mcpAgentTool(server: string, tool: Tool, caller: McpToolCaller): AgentTool {
  const readOnly = tool.annotations?.readOnlyHint === true;
  const title = tool.annotations?.title ?? tool.title ?? tool.name;
  return {
    name: mcpToolName(server, tool.name),
    description: (tool.description ?? title).slice(0, MAX_DESCRIPTION),
    access: readOnly ? "read" : "execute",
    kind: readOnly ? "read" : "other",
    // The server validates its own arguments against the schema it advertised.
    argsSchema: z.unknown(),
    parameters: parametersOf(tool),
    title: () => `${server}: ${title}`,
    locations: () => [],
    async execute(args, context) {
      const result = await caller.call(tool.name, args ?? {}, context.signal);
      const text = resultText(result);
      if (result.isError === true) throw new ToolError(text === "" ? "The tool failed." : text);
      return text;
    },
  };
}
