import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@tapedeck/postgres-server";
import { createSessionStore } from "@tapedeck/session-store";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { describeQueryEngine } from "../testing";
import { createPostgresQueryEngine } from "./postgres-engine";

// One database for the file, emptied before each test (creating one per test costs a checkpoint).
let database: Promise<TestDatabase> | undefined;
afterAll(async () => (await database)?.drop());

async function emptyDatabase(): Promise<TestDatabase> {
  database ??= createTestDatabase(inject("postgresUrl"));
  const ready = await database;
  const client = new pg.Client({ connectionString: ready.url });
  await client.connect();
  try {
    await client.query(
      "DROP TABLE IF EXISTS tapedeck_schema, tapedeck_sessions, tapedeck_events, tapedeck_push_state, tapedeck_push_cursor CASCADE",
    );
  } finally {
    await client.end();
  }
  return ready;
}

describeQueryEngine("postgres", async () => {
  const database = await emptyDatabase();
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-pg-query-"));
  const sessions = join(home, "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const store = createSessionStore({ home });
  const engine = await createPostgresQueryEngine({ url: database.url });
  return {
    engine,
    async write(header, events) {
      const path = join(sessions, `${header.sessionId}.jsonl`);
      const text = [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join("");
      const existing = fs.existsSync(path) ? fs.readFileSync(path, "utf8") : null;
      if (existing !== null && text.startsWith(existing)) {
        // An append, as a writer makes it: the push must send only the new events.
        fs.appendFileSync(path, text.slice(existing.length));
      } else {
        fs.writeFileSync(`${path}.tmp`, text);
        fs.renameSync(`${path}.tmp`, path);
      }
      await engine.push(store, { sessionIds: [header.sessionId] });
    },
    async remove(sessionId) {
      fs.mkdirSync(join(home, "trash"), { recursive: true });
      fs.renameSync(
        join(sessions, `${sessionId}.jsonl`),
        join(home, "trash", `${sessionId}.jsonl`),
      );
      await engine.push(store);
    },
    async close() {
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
});
