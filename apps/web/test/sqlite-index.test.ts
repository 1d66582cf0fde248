import { appendFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, createSqliteIndex, sqliteIndexPath } from "../src/server/index";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("createSqliteIndex", () => {
  it("moves a damaged index.sqlite aside and rebuilds it from the logs", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "tapedeck-web-index-"));
    dirs.push(home);
    const sessionId = "0193b6e2-7c1a-7d3e-9f00-000000000001";
    await mkdir(path.join(home, "sessions"));
    const log = eventLogBuilder({ sessionId, cwd: home }).system("s").turn().user("hello").end();
    await writeFile(path.join(home, "sessions", `${sessionId}.jsonl`), log.jsonl());
    await writeFile(sqliteIndexPath(home), "not a SQLite database\n".repeat(100));
    const warnings: string[] = [];
    const index = createSqliteIndex(createSessionStore({ home }), (message) =>
      warnings.push(message),
    );
    try {
      await index.sync();
      const page = await index.engine.listSessions({ all: true }, { limit: 10 });
      expect(page.items.map((item) => item.id)).toEqual([sessionId]);
    } finally {
      index.close();
    }
    expect(warnings).toEqual([
      expect.stringMatching(
        /^tapedeck: the search index .*index\.sqlite was damaged \(file is not a database\); moved it to .*index\.sqlite\.damaged-\S+ and rebuilding it from the logs\.$/,
      ),
    ]);
    expect((await readdir(home)).filter((name) => name.includes(".damaged-"))).toHaveLength(1);
  });

  it("/api/events and /api/sessions serve nothing a replay refuses in bytes appended after indexing (issue #28)", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "tapedeck-web-index-"));
    dirs.push(home);
    const sessionId = "0193b6e2-7c1a-7d3e-9f00-000000000002";
    await mkdir(path.join(home, "sessions"));
    const log = eventLogBuilder({ sessionId, cwd: home })
      .system("s")
      .turn()
      .user("first okapi")
      .call("ls", {}, "c1")
      .output("x")
      .end();
    const file = path.join(home, "sessions", `${sessionId}.jsonl`);
    await writeFile(file, log.jsonl());
    const store = createSessionStore({ home });
    const index = createSqliteIndex(store, () => undefined);
    const web = createApp({ store, index, agent: { model: "openai:gpt-4.1-mini", env: {} } });
    try {
      await index.sync();
      const before = log.events.length;
      const runId = log.events[0]!.runId;
      // An orphan output outside any turn, then a user message, appended as a writer would.
      log.push({
        type: "function_call_output",
        runId,
        callId: "c1",
        output: "orphaned okapi",
        isError: false,
        sourceEventSeqs: [4],
      });
      log.push({ type: "message", runId, role: "user", content: "appended okapi" });
      const added = log.events.slice(before).map((event) => `${JSON.stringify(event)}\n`);
      await appendFile(file, added.join(""));
      store.announceChange(sessionId);
      const events = await (await web.app.request("/api/events?q=okapi")).json();
      expect(events.items.map((hit: { event: { seq: number } }) => hit.event.seq)).toEqual([3]);
      const sessions = await (await web.app.request("/api/sessions")).json();
      expect(sessions.items).toMatchObject([
        { id: sessionId, status: "damaged", damage: { code: "TURN_NESTING" } },
      ]);
    } finally {
      await web.close();
      index.close();
    }
  });

  it("creates the index and its WAL private to the user (0600)", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "tapedeck-web-index-"));
    dirs.push(home);
    const index = createSqliteIndex(createSessionStore({ home }));
    try {
      await index.sync();
      for (const suffix of ["", "-wal"]) {
        expect((await stat(`${sqliteIndexPath(home)}${suffix}`)).mode & 0o777).toBe(0o600);
      }
    } finally {
      index.close();
    }
  });
});
