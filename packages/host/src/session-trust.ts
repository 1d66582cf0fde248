/**
 * What this home knows of a session that its log cannot prove. A log is data: it can be imported,
 * copied from a team index or sent by anyone, so nothing in it shows that this home's person chose
 * it. The proof lives beside the logs, in the home: `trust/<sessionId>` holds one entry a line,
 * written by this home's own runs:
 *
 * - `mcp <digest>`: a run recorded this MCP server list from the person's configuration
 *   (`--mcp-config`, ACP `mcpServers`); a recorded list without it never starts again;
 * - `approval auto`: a run here ran the session under `auto`; a reload adopts `auto` only then;
 * - `ran`: a run here worked on the session (a session without it is from elsewhere: its first
 *   resume says where it will work).
 */
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { isSessionId, toStorageFault } from "@tapedeck/session";
import { makeDirectories } from "@tapedeck/session-store/folder";

/** The home-side record of what a person chose for a session. */
export interface SessionTrustLedger {
  /** True when `entry` was recorded for one of `sessionIds` (a session and its fork ancestors). */
  has(sessionIds: readonly string[], entry: string): boolean;
  /** Records `entry` for `sessionId` (idempotent; the file is `0600`, its folder `0700`). */
  add(sessionId: string, entry: string): void;
}

/** The ledger of the home `home`: `HOME/trust/<sessionId>`, one entry a line. */
export function sessionTrustLedger(home: string): SessionTrustLedger {
  const folder = path.join(home, "trust");
  // Ids are checked before a path is built (no traversal through a crafted parent id).
  const fileOf = (sessionId: string) =>
    isSessionId(sessionId) ? path.join(folder, sessionId) : undefined;
  const entriesOf = (sessionId: string): string[] => {
    const file = fileOf(sessionId);
    if (file === undefined) return [];
    try {
      return readFileSync(file, "utf8").split("\n");
    } catch {
      return [];
    }
  };
  return {
    has: (sessionIds, entry) => sessionIds.some((id) => entriesOf(id).includes(entry)),
    add: (sessionId, entry) => {
      const file = fileOf(sessionId);
      if (file === undefined || entriesOf(sessionId).includes(entry)) return;
      try {
        makeDirectories(folder);
        appendFileSync(file, `${entry}\n`, { mode: 0o600 });
      } catch (error) {
        // A full disk or a read-only home is one sentence naming the file, as for a log.
        throw toStorageFault(error, { path: file, home }) ?? error;
      }
    },
  };
}
