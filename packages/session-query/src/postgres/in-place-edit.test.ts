/**
 * A log changed in place without growing (issue #28): the next push stores it again from its
 * first event, so the team index serves only what a replay of the file accepts.
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPostgresQueryEngine } from "./postgres-engine";

describe("push of a log edited in place", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("a same-length edit (a seq gap) is seen by the next push", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-push-edit-"));
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
    fs.mkdirSync(join(home, "sessions"));
    const log = eventLogBuilder().turn().user("first egret").assistant("second egret").end();
    const file = join(home, "sessions", `${log.header.sessionId}.jsonl`);
    fs.writeFileSync(file, log.jsonl());
    const engine = await createPostgresQueryEngine({ url: database.url });
    cleanups.push(() => engine.close());
    const store = createSessionStore({ home });
    await engine.push(store);
    expect((await engine.listSessions({ all: true })).items[0]?.status).toBe("completed");
    const text = fs.readFileSync(file, "utf8");
    const edited = text.replace('"seq":3,', '"seq":7,');
    expect(edited.length).toBe(text.length);
    fs.writeFileSync(file, edited);
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(file, later, later);
    store.announceChange(log.header.sessionId);
    await engine.push(store);
    const [summary] = (await engine.listSessions({ all: true })).items;
    expect(summary?.status).toBe("damaged");
    expect(summary?.damage?.code).toBe("SEQ_GAP");
    const hits = await engine.searchEvents({ all: true }, { text: "egret", order: "oldest" });
    expect(hits.items.map((hit) => hit.event.seq)).toEqual([2]);
  }, 60_000);
});
