import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteIndex, sqliteIndexPath } from "../src/server/index";

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
