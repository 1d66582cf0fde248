import * as fs from "node:fs";
import { join } from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { syncedEngine } from "./query-index";

/** A home of `count` one-turn sessions, written as files (as an import or another machine would). */
function homeWith(count: number): string {
  const home = testTempDir("tapedeck-slow-sync-");
  fs.mkdirSync(join(home, "sessions"));
  for (let index = 0; index < count; index += 1) {
    const sessionId = `0193b6e2-7c1a-7d3e-9f00-${index.toString(16).padStart(12, "0")}`;
    const log = eventLogBuilder({ sessionId, cwd: "/work/project" })
      .turn()
      .user(`question ${index}`)
      .assistant(`answer ${index}`)
      .end();
    fs.writeFileSync(join(home, "sessions", `${sessionId}.jsonl`), log.jsonl());
  }
  return home;
}

describe("a sync before a query that reads many logs", () => {
  it("says what it is doing and when it is done, once", async () => {
    const notices: string[] = [];
    const store = createSessionStore({ home: homeWith(5) });
    const engine = syncedEngine(store, (text) => notices.push(text), { sessions: 3, ms: 0 });
    try {
      const page = await engine.listSessions({ all: true }, { limit: 50 });
      expect(page.items).toHaveLength(5);
      expect(notices).toEqual([
        "tapedeck: updating the search index: 5 sessions to read (a new or upgraded index reads every log once)…\n",
        expect.stringMatching(
          /^tapedeck: search index up to date \(\d+ events in \d+\.\d s\)\.\n$/,
        ),
      ]);
      // The next query finds the index up to date: nothing more to say.
      await engine.listSessions({ all: true }, { limit: 50 });
      expect(notices).toHaveLength(2);
    } finally {
      engine.close();
    }
  });

  it("stays silent when few logs are read, however long it takes", async () => {
    const notices: string[] = [];
    const store = createSessionStore({ home: homeWith(5) });
    const engine = syncedEngine(store, (text) => notices.push(text), { sessions: 6, ms: 0 });
    try {
      await engine.listSessions({ all: true }, { limit: 50 });
      expect(notices).toEqual([]);
    } finally {
      engine.close();
    }
  });

  it("stays silent when a sync of many logs ends before the time", async () => {
    const notices: string[] = [];
    const store = createSessionStore({ home: homeWith(5) });
    const engine = syncedEngine(store, (text) => notices.push(text), { sessions: 1, ms: 60_000 });
    try {
      await engine.listSessions({ all: true }, { limit: 50 });
      expect(notices).toEqual([]);
    } finally {
      engine.close();
    }
  });
});
