/** Test helper: an `opencode.db` with opencode's tables (session, message, part; JSON in `data`). */
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type BetterSqlite3 from "better-sqlite3";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

/** The opencode sample (an `opencode export` document) the databases are made from. */
export const opencodeSample = JSON.parse(
  readFileSync(
    fileURLToPath(
      new URL(
        "../../__fixtures__/samples/opencode/ses_18684d584ffe1JuGPUt8v6Igr8.json",
        import.meta.url,
      ),
    ),
    "utf8",
  ),
) as {
  info: {
    id: string;
    directory: string;
    title: string;
    time: { created: number; updated: number };
  };
  messages: { info: { id: string; time: { created: number } }; parts: { id: string }[] }[];
};

/** Options of {@link writeOpencodeDatabase}. */
export interface OpencodeDatabaseOptions {
  /** Adds a part whose JSON does not parse. */
  damagedPart?: boolean;
  /** Writes only the sample's first `messages` messages (default all). */
  messages?: number;
  /** Also writes the sample as a second session of this id. */
  secondSessionId?: string;
}

/** Writes `dir/opencode.db` from the sample; returns its path. */
export function writeOpencodeDatabase(dir: string, options: OpencodeDatabaseOptions = {}): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "opencode.db");
  const db = new Database(path);
  db.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
      directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);`);
  db.close();
  const count = options.messages ?? opencodeSample.messages.length;
  addOpencodeMessages(path, opencodeSample.info.id, 0, count);
  if (options.secondSessionId !== undefined) {
    addOpencodeMessages(path, options.secondSessionId, 0, opencodeSample.messages.length);
  }
  if (options.damagedPart === true) {
    const damaged = new Database(path);
    damaged
      .prepare("INSERT INTO part VALUES ('prt_zzz', ?, ?, 0, 0, '{broken')")
      .run(opencodeSample.messages[0]!.info.id, opencodeSample.info.id);
    damaged.close();
  }
  return path;
}

/**
 * Writes the sample's messages `from` to `to` (and their parts) into session `sessionId` (created
 * when `from` is 0), as opencode does while a session runs. Ids of another session are suffixed.
 */
export function addOpencodeMessages(
  path: string,
  sessionId: string,
  from: number,
  to: number,
): void {
  const db = new Database(path);
  const { info } = opencodeSample;
  const suffix = sessionId === info.id ? "" : `_${sessionId}`;
  if (from === 0) {
    db.prepare("INSERT INTO session VALUES (?, 'p', NULL, 's', ?, ?, '1.2.0', ?, ?)").run(
      sessionId,
      info.directory,
      info.title,
      info.time.created,
      info.time.updated,
    );
  }
  for (const message of opencodeSample.messages.slice(from, to)) {
    const { id, ...data } = message.info;
    db.prepare("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(
      `${id}${suffix}`,
      sessionId,
      message.info.time.created,
      message.info.time.created,
      JSON.stringify({ ...data, sessionID: sessionId }),
    );
    for (const part of message.parts) {
      const { id: partId, ...partData } = part;
      db.prepare("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)").run(
        `${partId}${suffix}`,
        `${id}${suffix}`,
        sessionId,
        JSON.stringify({ ...partData, sessionID: sessionId, messageID: `${id}${suffix}` }),
      );
    }
  }
  db.close();
}
