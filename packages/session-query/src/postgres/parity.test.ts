import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { createSessionStore } from "@tapedeck/session-store";
import { inject } from "vitest";
import { describeParity } from "../testing/parity";
import { createPostgresQueryEngine } from "./postgres-engine";

describeParity("PostgreSQL", async () => {
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-pg-parity-"));
  fs.mkdirSync(join(home, "sessions"));
  const database = await createTestDatabase(inject("postgresUrl"));
  const engine = await createPostgresQueryEngine({ url: database.url });
  return {
    engine,
    async load(logs) {
      for (const log of logs) {
        fs.writeFileSync(join(home, "sessions", `${log.header.sessionId}.jsonl`), log.jsonl);
      }
      await engine.push(createSessionStore({ home }));
    },
    async close() {
      await engine.close();
      await database.drop();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
});
