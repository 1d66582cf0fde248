import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import type BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { importSessions } from "../import-run";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const sample = JSON.parse(
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

/** `opencode.db` with opencode's tables (session, message, part; JSON in `data`), from the sample. */
function writeDatabase(dir: string, damagedPart = false): string {
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
  const { info } = sample;
  db.prepare("INSERT INTO session VALUES (?, 'p', NULL, 's', ?, ?, '1.2.0', ?, ?)").run(
    info.id,
    info.directory,
    info.title,
    info.time.created,
    info.time.updated,
  );
  for (const message of sample.messages) {
    const { id, ...data } = message.info;
    db.prepare("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(
      id,
      info.id,
      message.info.time.created,
      message.info.time.created,
      JSON.stringify(data),
    );
    for (const part of message.parts) {
      const { id: partId, ...partData } = part;
      db.prepare("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)").run(
        partId,
        id,
        info.id,
        JSON.stringify(partData),
      );
    }
  }
  if (damagedPart) {
    db.prepare("INSERT INTO part VALUES ('prt_zzz', ?, ?, 0, 0, '{broken')").run(
      sample.messages[0]!.info.id,
      info.id,
    );
  }
  db.close();
  return path;
}

describe("opencode's SQLite database", () => {
  it("imports each session of opencode.db as the export of the same session would", async () => {
    const root = testTempDir("tapedeck-opencode-db-");
    writeDatabase(join(root, "data"), true);
    const fromDb = createSessionStore({ home: join(root, "a") });
    const summary = await importSessions({
      store: fromDb,
      source: "opencode",
      paths: [join(root, "data")],
    });
    expect(summary.counts.created).toBe(1);
    expect(summary.files[0]?.skipped.map((skip) => skip.reason)).toEqual(["row prt_zzz: not JSON"]);
    const fromExport = createSessionStore({ home: join(root, "b") });
    const exported = await importSessions({
      store: fromExport,
      source: "opencode",
      paths: [fileURLToPath(new URL("../../__fixtures__/samples/opencode", import.meta.url))],
    });
    const a = await fromDb.readSession(summary.files[0]!.sessions[0]!.sessionId);
    const b = await fromExport.readSession(exported.files[0]!.sessions[0]!.sessionId);
    expect(a.sessionId).toBe(b.sessionId);
    expect(a.events).toEqual(b.events);
    expect(a.header.origin).toMatchObject({ tool: "opencode", sessionId: sample.info.id });
  });
});
