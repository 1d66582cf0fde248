/**
 * Reading a tool's answer from an MCP client, as the tests of servers Tapedeck offers (the query
 * server of `@tapedeck/host`, `tapedeck mcp`) do it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** `call(name, args)`: calls a tool through `client` and returns its result as a tool result. */
export function toolCaller(
  client: Client,
): (name: string, args: Record<string, unknown>) => Promise<CallToolResult> {
  return async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text parts of a tool result, joined (other parts count as empty). */
export function toolText(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
