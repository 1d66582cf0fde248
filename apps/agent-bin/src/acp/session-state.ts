import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { McpServerConfig } from "@tapedeck/host";
import type { McpPool } from "@tapedeck/host/mcp";

/** Approval modes, as ACP session modes. */
export const SESSION_MODES: acp.SessionMode[] = [
  { id: "ask", name: "Ask", description: "Ask before writes and commands" },
  { id: "auto", name: "Auto", description: "Run everything" },
  { id: "deny", name: "Read only", description: "Read only: writes and commands are refused" },
];

/** An approval mode id. */
export type Mode = "ask" | "auto" | "deny";

/** True for `ask`, `auto` and `deny`. */
export function isMode(value: string): value is Mode {
  return value === "ask" || value === "auto" || value === "deny";
}

/** What this process keeps about an ACP session (everything else is in the log). */
export interface SessionState {
  sessionId: string;
  cwd: string;
  mode: Mode;
  model: string;
  alwaysAllowed: Set<string>;
  /** The servers the editor gave (`undefined`: the ones recorded in the session reconnect). */
  mcpServers?: McpServerConfig[] | undefined;
  /** The session's running MCP servers, kept across its prompts; closed with the session. */
  mcpPool?: McpPool | undefined;
  /** Servers whose failure to start was already told to the editor. */
  mcpReported?: Set<string>;
  /** `available_commands_update` was sent on this connection. */
  commandsAdvertised?: boolean;
  active?: { controller: AbortController; done: Promise<unknown> } | undefined;
}
