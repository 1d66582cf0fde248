/**
 * Keeps a session's MCP connections across its runs (an ACP session prompts many times; starting
 * its servers once per prompt would cost seconds each time). A run asks the pool for a list of
 * servers; the same list in the same cwd reuses the running connections.
 */
import { connectMcpServers, type McpConnections, type McpConnectOptions } from "./mcp-client";
import type { McpServerConfig } from "./server-config";

/** Connections shared by the runs of one surface session. */
export interface McpPool {
  /** Connections for `servers` in `cwd`; their `close()` does nothing (the pool closes them). */
  connect(servers: readonly McpServerConfig[], cwd: string): Promise<McpConnections>;
  /** Stops every server the pool started. */
  close(): Promise<void>;
}

/** A pool; `options` apply to every connection it makes. */
export function createMcpPool(options: Omit<McpConnectOptions, "cwd"> = {}): McpPool {
  const open = new Map<string, Promise<McpConnections>>();
  return {
    async connect(servers, cwd) {
      const key = JSON.stringify([cwd, servers]);
      let connections = open.get(key);
      if (connections === undefined) {
        connections = connectMcpServers(servers, { ...options, cwd });
        open.set(key, connections);
      }
      const shared = await connections;
      return { tools: shared.tools, failures: shared.failures, close: async () => undefined };
    },
    async close() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map(async (connections) => (await connections).close()));
    },
  };
}
