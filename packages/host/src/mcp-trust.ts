/**
 * Which MCP server lists this home recorded from a person's own configuration. A log is data: it
 * can be imported, copied from a team index or sent by anyone, so an `x-mcp/servers` record in it
 * proves nothing. The proof lives beside the logs, in the home: `mcp-trust/<sessionId>` holds one
 * digest a line, written when a run records a list the person gave (`--mcp-config`, ACP
 * `mcpServers`). A recorded list whose digest is not there never starts.
 */
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { isSessionId } from "@tapedeck/session";
import { makeDirectories } from "@tapedeck/session-store/folder";

/** The home-side record of server lists a person configured, per session. */
export interface McpTrustLedger {
  /** True when `digest` was recorded for one of `sessionIds` (a session and its fork ancestors). */
  has(sessionIds: readonly string[], digest: string): boolean;
  /** Records `digest` for `sessionId` (idempotent; the file is `0600`, its folder `0700`). */
  add(sessionId: string, digest: string): void;
}

/** The ledger of the home `home`: `HOME/mcp-trust/<sessionId>`, one digest a line. */
export function mcpTrustLedger(home: string): McpTrustLedger {
  const folder = path.join(home, "mcp-trust");
  // Ids are checked before a path is built (no traversal through a crafted parent id).
  const fileOf = (sessionId: string) =>
    isSessionId(sessionId) ? path.join(folder, sessionId) : undefined;
  const digestsOf = (sessionId: string): string[] => {
    const file = fileOf(sessionId);
    if (file === undefined) return [];
    try {
      return readFileSync(file, "utf8").split("\n");
    } catch {
      return [];
    }
  };
  return {
    has: (sessionIds, digest) => sessionIds.some((id) => digestsOf(id).includes(digest)),
    add: (sessionId, digest) => {
      const file = fileOf(sessionId);
      if (file === undefined || digestsOf(sessionId).includes(digest)) return;
      makeDirectories(folder);
      appendFileSync(file, `${digest}\n`, { mode: 0o600 });
    },
  };
}
