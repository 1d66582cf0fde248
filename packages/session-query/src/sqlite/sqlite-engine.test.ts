import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { describeQueryEngine } from "../testing";
import { createSqliteQueryEngine } from "./sqlite-engine";

describeQueryEngine("sqlite", async () => {
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-query-"));
  const sessions = join(home, "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const store = createSessionStore({ home });
  const engine = createSqliteQueryEngine({ path: join(home, "index.sqlite"), store });
  return {
    engine,
    async write(header, events) {
      const path = join(sessions, `${header.sessionId}.jsonl`);
      const text = [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join("");
      const existing = fs.existsSync(path) ? fs.readFileSync(path, "utf8") : null;
      if (existing !== null && text.startsWith(existing)) {
        // An append, as a writer makes it: the index must pick up only the new bytes.
        fs.appendFileSync(path, text.slice(existing.length));
      } else {
        fs.writeFileSync(`${path}.tmp`, text);
        fs.renameSync(`${path}.tmp`, path);
      }
      // Written by hand, not through the store: tell the change journal, as another program must.
      store.announceChange(header.sessionId);
      await engine.sync();
    },
    async remove(sessionId) {
      fs.mkdirSync(join(home, "trash"), { recursive: true });
      fs.renameSync(
        join(sessions, `${sessionId}.jsonl`),
        join(home, "trash", `${sessionId}.jsonl`),
      );
      await engine.sync();
    },
    async close() {
      engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
});
