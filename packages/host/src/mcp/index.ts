/**
 * `@tapedeck/host/mcp`: MCP both ways. On its own subpath so that commands which do not speak
 * MCP never load the MCP SDK (it is a third of the bundle).
 */
export {
  connectMcpServers,
  type McpConnections,
  type McpConnectOptions,
} from "./mcp-client";
export { createMcpPool, type McpPool } from "./mcp-pool";
export { mcpAgentTool, mcpToolName, resultText } from "./mcp-tools";
export {
  createQueryServer,
  type QueryServerOptions,
  serveQueryServerOnStdio,
} from "./query-server";
