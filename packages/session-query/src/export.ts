import type { QueryScope, SessionQueryEngine } from "./query-engine";

/**
 * The session as JSONL, produced only after replay validation: header first, then every event
 * one per line. A fork is exported self-contained: its parent prefix (seq 1 to `parent.seq`) is
 * inlined before its own events and `parent` stays in the header as provenance. To replay the
 * export, hand the first `parent.seq` events as `parentEvents` (see `replayEvents`).
 *
 * @throws SessionNotFoundError when missing or out of scope.
 * @throws EventLogCorruptError when the log (or an ancestor's) is damaged; nothing is produced.
 */
export async function exportSession(
  engine: SessionQueryEngine,
  scope: QueryScope,
  sessionId: string,
): Promise<string> {
  const session = await engine.readSession(scope, sessionId);
  const lines = [JSON.stringify(session.header)];
  for (const event of session.events) lines.push(JSON.stringify(event));
  return `${lines.join("\n")}\n`;
}
