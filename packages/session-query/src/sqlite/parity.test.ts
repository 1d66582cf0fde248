import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { describeParity } from "../testing/parity";
import { createSqliteQueryEngine } from "./sqlite-engine";

describeParity("SQLite", async () => {
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-parity-"));
  fs.mkdirSync(join(home, "sessions"));
  const engine = createSqliteQueryEngine({
    path: join(home, "index.sqlite"),
    store: createSessionStore({ home }),
  });
  return {
    engine,
    async load(logs) {
      for (const log of logs) {
        fs.writeFileSync(join(home, "sessions", `${log.header.sessionId}.jsonl`), log.jsonl);
      }
      await engine.sync();
    },
    async close() {
      engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
});
