import { parseHeaderLine, replayLogText, type Session, TapedeckError } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";

/** The workspace demo sessions are filed under. */
export const DEMO_WORKSPACE = "demo";

/** What `POST /api/demo` did. */
export interface DemoReport {
  /** Sessions written now. */
  added: string[];
  /** Sessions that were already there (loading twice writes nothing new). */
  skipped: string[];
}

/**
 * Copies recorded logs into the store's sessions directory under the `demo` workspace. Each log
 * is replay-validated first (a fork against its parent), only its header's `workspaceId` is
 * changed, and an existing file is never overwritten.
 */
export async function loadDemoSessions(
  store: SessionStore,
  logs: readonly string[],
): Promise<DemoReport> {
  const parsed = logs.map((text) => {
    const newline = text.indexOf("\n");
    const header = parseHeaderLine(newline === -1 ? text : text.slice(0, newline));
    return { header, text };
  });
  const byId = new Map(parsed.map((log) => [log.header.sessionId, log]));
  // Validate everything before writing anything (a fork against its parent, recursively).
  const replay = (log: (typeof parsed)[number], depth: number): Session => {
    const parent = log.header.parent;
    if (parent === undefined) return replayLogText(log.text);
    const parentLog = byId.get(parent.sessionId);
    if (parentLog === undefined || depth > 16) {
      throw new Error(`Demo fork ${log.header.sessionId} needs its parent ${parent.sessionId}.`);
    }
    const parentEvents = replay(parentLog, depth + 1).events.filter(
      (event) => event.seq <= parent.seq,
    );
    return replayLogText(log.text, { parentEvents });
  };
  for (const log of parsed) replay(log, 0);
  const report: DemoReport = { added: [], skipped: [] };
  // Parents first (the store replays a fork against its parent, and a live reader never sees a
  // fork without it): by depth in the fork tree, which the replay above bounded.
  const depth = (log: (typeof parsed)[number]): number => {
    const parent = log.header.parent && byId.get(log.header.parent.sessionId);
    return parent === undefined ? 0 : 1 + depth(parent);
  };
  const ordered = [...parsed].sort((a, b) => depth(a) - depth(b));
  for (const log of ordered) {
    try {
      await store.adoptLog(log.text, { workspaceId: DEMO_WORKSPACE });
      report.added.push(log.header.sessionId);
    } catch (error) {
      if (!(TapedeckError.isInstance(error) && error.code === "SESSION_EXISTS")) throw error;
      report.skipped.push(log.header.sessionId);
    }
  }
  return report;
}
