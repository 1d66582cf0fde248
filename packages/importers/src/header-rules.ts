/**
 * What an imported session may not carry into its header: a working directory a log cannot choose
 * (none, relative, the root; `unsafeCwdReason`, the rule resuming uses too). A source session with
 * one is not imported; the report names it in one sentence.
 */
import { unsafeCwdReason } from "@tapedeck/session-store/folder";
import type { ConvertedSession, SkippedLine } from "./types";

/** The sessions whose cwd may be adopted, and a skipped record for each refused one. */
export function withSafeCwd(sessions: readonly ConvertedSession[]): {
  sessions: ConvertedSession[];
  skipped: SkippedLine[];
} {
  const kept: ConvertedSession[] = [];
  const skipped: SkippedLine[] = [];
  for (const session of sessions) {
    const reason = unsafeCwdReason(session.cwd);
    if (reason === undefined) {
      kept.push(session);
      continue;
    }
    skipped.push({
      path: session.path,
      line: 0,
      offset: 0,
      reason: `session ${session.key.sessionId} not imported: its directory ${JSON.stringify(session.cwd)} ${reason.replace(/^which /, "")}, and a session must name the absolute directory it works in`,
    });
  }
  return { sessions: kept, skipped };
}
