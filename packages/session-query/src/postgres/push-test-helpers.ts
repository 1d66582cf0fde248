/**
 * Helpers of the push tests: a home full of logs, and what the index holds of it. Logs go in and
 * come out through the store (`adoptLog`, `scan`, its reader): only the store knows its folder.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import pg from "pg";

/** A temp home with `sessions` logs of `turns` turns each (4 events + 2 per call a turn). */
export async function makeHome(
  options: { sessions: number; turns: number; workspaceId?: string; word?: string } = {
    sessions: 5,
    turns: 3,
  },
): Promise<{ home: string; events: number }> {
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-push-"));
  const store = createSessionStore({ home });
  let events = 0;
  let start = Date.parse("2026-05-01T00:00:00.000Z");
  for (let index = 0; index < options.sessions; index += 1) {
    start += 60_000;
    const log = eventLogBuilder({
      sessionId: uuidv7(start),
      workspaceId: options.workspaceId ?? "/work/push",
      start: new Date(start),
    });
    for (let turn = 0; turn < options.turns; turn += 1) {
      log
        .turn()
        .user(`${options.word ?? "pelican"} question ${index}.${turn} 数据库连接`)
        .call("shell", { command: `ls ${turn}` })
        .output(`listing ${turn}`)
        .assistant(`answer ${index}.${turn}`)
        .end();
    }
    events += log.events.length;
    await store.adoptLog(log.jsonl());
  }
  return { home, events };
}

/** A digest of every log of the home (session ids and bytes), read through the store. */
export async function digestLogs(home: string): Promise<string> {
  const store = createSessionStore({ home });
  const hash = createHash("sha256");
  for (const { sessionId, size } of (await store.scan()).logs) {
    hash.update(sessionId);
    const reader = store.openLogReader(sessionId);
    try {
      hash.update(reader?.readAt(0, size) ?? "missing");
    } finally {
      reader?.close();
    }
  }
  return hash.digest("hex");
}

/** Per session: rows stored, the aggregate's count, and whether any seq is stored twice. */
export async function indexContents(
  url: string,
): Promise<{ sessions: number; events: number; consistent: boolean }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ rows: string; counted: string; distinct_seqs: string }>(
      `SELECT (SELECT count(*) FROM tapedeck_events e WHERE e.session_id = s.session_id) AS rows,
         (s.aggregate->>'eventCount') AS counted,
         (SELECT count(DISTINCT seq) FROM tapedeck_events e WHERE e.session_id = s.session_id) AS distinct_seqs
       FROM tapedeck_sessions s`,
    );
    return {
      sessions: rows.length,
      events: rows.reduce((sum, row) => sum + Number(row.rows), 0),
      consistent: rows.every((row) => row.rows === row.counted && row.rows === row.distinct_seqs),
    };
  } finally {
    await client.end();
  }
}
