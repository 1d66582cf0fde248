import type * as acp from "@agentclientprotocol/sdk/unstable";

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
  active?: { controller: AbortController; done: Promise<unknown> } | undefined;
}
