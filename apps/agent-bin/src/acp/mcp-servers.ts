/**
 * ACP `mcpServers` → the host's `McpServerConfig`: the wire translation only (which list a run
 * uses, recording and connecting are the host's, `@tapedeck/host`'s `run-mcp.ts`).
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { McpConfigError, type McpServerConfig, parseMcpServers } from "@tapedeck/host";

/** Editors name servers for people ("GitHub MCP"); tool names need `[A-Za-z0-9_-]`. */
const toolSafe = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "server";

const pairs = (list: readonly { name: string; value: string }[] | undefined) =>
  Object.fromEntries((list ?? []).map((pair) => [pair.name, pair.value]));

/**
 * The servers an editor passed, or `undefined` when it passed none (the session then reconnects
 * the servers recorded in its log). SSE and ACP-transport servers are skipped with a log line:
 * they are not advertised.
 *
 * @throws acp.RequestError invalid params for a malformed entry or two servers with one name.
 */
export function mcpServersFromAcp(
  servers: readonly acp.McpServer[] | undefined,
  log: (message: string) => void,
): McpServerConfig[] | undefined {
  if (servers === undefined || servers.length === 0) return undefined;
  const configs: unknown[] = [];
  for (const server of servers) {
    if (!("type" in server) || server.type === undefined || (server.type as string) === "stdio") {
      const stdio = server as acp.McpServerStdio;
      configs.push({
        transport: "stdio",
        name: toolSafe(stdio.name),
        command: stdio.command,
        args: stdio.args ?? [],
        env: pairs(stdio.env),
      });
    } else if (server.type === "http") {
      configs.push({
        transport: "http",
        name: toolSafe(server.name),
        url: server.url,
        headers: pairs(server.headers),
      });
    } else {
      log(
        `MCP server ${JSON.stringify(server.name)} uses the ${server.type} transport, which is not supported; not connecting it.`,
      );
    }
  }
  try {
    return parseMcpServers(configs, "mcpServers");
  } catch (error) {
    if (McpConfigError.isInstance(error)) {
      throw acp.RequestError.invalidParams({ mcpServers: servers.length }, error.message);
    }
    throw error;
  }
}
