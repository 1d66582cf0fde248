/**
 * opencode's SQLite database (`opencode.db`, opencode ≥ 1.2; tables `session`, `message`, `part`
 * with the message and part JSON in `data` columns), read-only, assembled into the
 * `opencode export` shape so one converter reads every form.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { parseJsonDocument } from "../lines";
import type { SkippedLine } from "../types";
import { isRecord } from "./common";

/** The database file under `root` (`root` itself when it is one), if there is one. */
export function opencodeDatabase(root: string): string | undefined {
  if (root.endsWith(".db")) return existsSync(root) ? root : undefined;
  const path = join(root, "opencode.db");
  return existsSync(path) ? path : undefined;
}

/** A session of the database with the bytes of its messages and parts. */
export interface DatabaseSession {
  id: string;
  bytes: number;
}

/** Opens the database read-only; native, so loaded only when a database is read. */
function open(path: string): BetterSqlite3.Database {
  const require = createRequire(import.meta.url);
  const Database = require("better-sqlite3") as typeof BetterSqlite3;
  return new Database(path, { readonly: true, fileMustExist: true });
}

/** Every session of the database, oldest first. */
export function opencodeDatabaseSessions(path: string): DatabaseSession[] {
  const db = open(path);
  try {
    return db
      .prepare(
        `SELECT s.id AS id,
           COALESCE((SELECT SUM(LENGTH(m.data)) FROM message m WHERE m.session_id = s.id), 0) +
           COALESCE((SELECT SUM(LENGTH(p.data)) FROM part p WHERE p.session_id = s.id), 0) AS bytes
         FROM session s ORDER BY s.time_created, s.id`,
      )
      .all() as DatabaseSession[];
  } finally {
    db.close();
  }
}

/**
 * What each session of the database is now, as one string per session id: its rows' data bytes
 * and their latest `time_updated`. A session whose string moved since the last look changed
 * (continuous import imports only those).
 */
export function opencodeDatabaseFingerprints(path: string): Map<string, string> {
  const db = open(path);
  try {
    const rows = db
      .prepare(
        `SELECT s.id AS id, s.time_updated AS updated,
           COALESCE((SELECT SUM(LENGTH(m.data)) || ':' || MAX(m.time_updated) FROM message m
             WHERE m.session_id = s.id), '') AS messages,
           COALESCE((SELECT SUM(LENGTH(p.data)) || ':' || MAX(p.time_updated) FROM part p
             WHERE p.session_id = s.id), '') AS parts
         FROM session s`,
      )
      .all() as { id: string; updated: number; messages: string; parts: string }[];
    return new Map(rows.map((row) => [row.id, `${row.updated}/${row.messages}/${row.parts}`]));
  } finally {
    db.close();
  }
}

interface SessionRow {
  id: string;
  parent_id: string | null;
  directory: string;
  title: string;
  time_created: number;
  time_updated: number;
}

/** One session as an export document; rows whose JSON does not parse are skipped. */
export function readOpencodeDatabaseSession(
  path: string,
  sessionId: string,
  skipped: SkippedLine[],
): unknown {
  const db = open(path);
  try {
    const row = db
      .prepare(
        "SELECT id, parent_id, directory, title, time_created, time_updated FROM session WHERE id = ?",
      )
      .get(sessionId) as SessionRow | undefined;
    if (row === undefined) return undefined;
    const where = `${path}#${sessionId}`;
    const parse = (data: string, id: string): Record<string, unknown> | undefined => {
      const parsed = parseJsonDocument(data, where);
      if (parsed.ok && isRecord(parsed.value)) return parsed.value;
      skipped.push({ path: where, line: 0, offset: 0, reason: `row ${id}: not JSON` });
      return undefined;
    };
    const parts = new Map<string, Record<string, unknown>[]>();
    const partRows = db
      .prepare("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id")
      .all(sessionId) as { id: string; message_id: string; data: string }[];
    for (const part of partRows) {
      const value = parse(part.data, part.id);
      if (value === undefined) continue;
      const list = parts.get(part.message_id) ?? [];
      list.push({ ...value, id: part.id, messageID: part.message_id, sessionID: sessionId });
      parts.set(part.message_id, list);
    }
    const messageRows = db
      .prepare("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id")
      .all(sessionId) as { id: string; data: string }[];
    const messages = messageRows.flatMap((message) => {
      const info = parse(message.data, message.id);
      return info === undefined
        ? []
        : [
            {
              info: { ...info, id: message.id, sessionID: sessionId },
              parts: parts.get(message.id) ?? [],
            },
          ];
    });
    return {
      info: {
        id: row.id,
        directory: row.directory,
        title: row.title,
        ...(row.parent_id === null ? {} : { parentID: row.parent_id }),
        time: { created: row.time_created, updated: row.time_updated },
      },
      messages,
    };
  } finally {
    db.close();
  }
}
