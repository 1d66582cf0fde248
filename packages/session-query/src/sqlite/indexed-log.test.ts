import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEventLine } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "./sqlite-engine";

let home: string;
let engine: SqliteQueryEngine;
const store = () => createSessionStore({ home });

/** Writes a log of two turns with a goal set in the first; answers its id and file. */
function writeLog(): { sessionId: string; file: string; text: string } {
  const log = eventLogBuilder();
  log.system("seed").turn().user("first");
  log.push({ type: "goal/set", runId: log.events.at(-1)?.runId ?? "", goal: "Boil water" });
  log.assistant("ok").end().turn().user("second").assistant("done").end();
  const file = join(home, "sessions", `${log.header.sessionId}.jsonl`);
  fs.mkdirSync(join(home, "sessions"), { recursive: true });
  fs.writeFileSync(file, log.jsonl());
  return { sessionId: log.header.sessionId, file, text: log.jsonl() };
}

beforeEach(() => {
  home = fs.mkdtempSync(join(tmpdir(), "tapedeck-indexed-log-"));
  engine = createSqliteQueryEngine({ path: join(home, "index.sqlite"), store: store() });
});

afterEach(() => {
  engine.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe("SqliteQueryEngine.indexedLog", () => {
  it("says how far the index read a log, for which file, and where the last goal is", async () => {
    const { sessionId, file, text } = writeLog();
    expect(engine.indexedLog(sessionId)).toBeNull();
    await engine.sync();
    const indexed = engine.indexedLog(sessionId);
    const stat = fs.statSync(file);
    expect(indexed).toMatchObject({
      headerText: text.slice(0, text.indexOf("\n")),
      damage: null,
      offset: stat.size,
      size: stat.size,
      inode: stat.ino,
      line: text.trimEnd().split("\n").length + 1,
    });
    expect(indexed?.aggregate).toMatchObject({ lastSeq: 10, turnCount: 2, eventCount: 10 });
    const goal = indexed?.lastGoal;
    if (goal == null) throw new Error("no goal position");
    const line = fs.readFileSync(file).subarray(goal.offset, goal.offset + goal.length);
    expect(parseEventLine(line.toString("utf8"))).toMatchObject({
      type: "goal/set",
      goal: "Boil water",
    });
  });

  it("reports the first damage and stops its offset before it", async () => {
    const { sessionId, file, text } = writeLog();
    const lines = text.split("\n");
    lines[5] = "{broken";
    fs.writeFileSync(file, lines.join("\n"));
    await engine.sync();
    const indexed = engine.indexedLog(sessionId);
    expect(indexed?.damage?.code).toBe("BAD_JSON");
    expect(indexed?.offset).toBe(Buffer.byteLength(`${lines.slice(0, 5).join("\n")}\n`));
  });
});
