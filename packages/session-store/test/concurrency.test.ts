import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSessionStore, JOURNAL_FILE, type SessionStore } from "../src/index";
import { bundleChild, spawnChild } from "./child-process";
import { tempDirectory } from "./helpers";

let script: string;
let temp: ReturnType<typeof tempDirectory>;
let store: SessionStore;

beforeAll(async () => {
  script = await bundleChild();
});
afterAll(() => rmSync(dirname(script), { recursive: true, force: true }));
beforeEach(() => {
  temp = tempDirectory();
  store = createSessionStore({ home: temp.home });
});
afterEach(() => temp.cleanup());

describe("two processes, one session", () => {
  it("the second process gets SessionBusyError naming the first while it holds the writer", async () => {
    const { sessionId } = await store.create({ cwd: temp.root });
    const holder = spawnChild(script, ["hold", temp.home, sessionId]);
    await holder.waitFor((line) => line === "locked");

    const contender = spawnChild(script, ["try", temp.home, sessionId]);
    await contender.exited;
    expect(contender.lines, contender.stderr()).toEqual([`busy ${holder.process.pid}`]);
    expect(await store.lockOwner(sessionId)).toMatchObject({ pid: holder.process.pid });

    holder.process.stdin?.write("release\n");
    await holder.exited;
    expect(holder.lines).toEqual(["locked", "done"]);
    const after = spawnChild(script, ["try", temp.home, sessionId]);
    await after.exited;
    expect(after.lines, after.stderr()).toEqual(["ok"]);
    const types = (await store.readSession(sessionId)).events.map((event) => event.type);
    expect(types).toEqual(["x-held", "x-try"]);
  });

  it("two processes hammering one session never interleave a line and lose no append", async () => {
    const { sessionId } = await store.create({ cwd: temp.root });
    const count = 120;
    const children = ["a", "b"].map((name) =>
      spawnChild(script, ["hammer", temp.home, sessionId, name, String(count)]),
    );
    await Promise.all(children.map((child) => child.waitFor((line) => line === "ready")));
    for (const child of children) child.process.stdin?.write("go\n");
    const results = await Promise.all(
      children.map(async (child) => {
        const { code } = await child.exited;
        expect(code, child.stderr()).toBe(0);
        return JSON.parse(child.lines.at(-1)!) as { name: string; busy: number };
      }),
    );

    // Every line is whole JSON on its own line, and the replay (seq contiguity) holds.
    const text = readFileSync(store.pathOf(sessionId), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const session = await store.readSession(sessionId);
    expect(session.lastSeq).toBe(2 * count);
    for (const name of ["a", "b"]) {
      const indexes = session.events
        .filter((event) => event.runId === name)
        .map((event) => (event as { index?: number }).index);
      expect(indexes).toEqual([...Array(count).keys()]);
    }
    // They really contended for the lock.
    expect(results.reduce((sum, result) => sum + result.busy, 0)).toBeGreaterThan(0);
  }, 60_000);

  it("two writers at once: the journal stays whole and a reader following it sees every append", async () => {
    const sessions = [
      (await store.create({ cwd: temp.root })).sessionId,
      (await store.create({ cwd: temp.root })).sessionId,
    ];
    const count = 60;
    let changes = await store.changesSince();
    const children = sessions.map((sessionId, index) =>
      spawnChild(script, ["hammer", temp.home, sessionId, `w${index}`, String(count)]),
    );
    await Promise.all(children.map((child) => child.waitFor((line) => line === "ready")));
    for (const child of children) child.process.stdin?.write("go\n");
    // What the reader believes each log's size is, updated only from what the journal names.
    const seen = new Map(sessions.map((id) => [id, store.entry(id)?.size ?? -1]));
    const follow = async () => {
      changes = await store.changesSince(changes.cursor);
      expect(changes.kind).toBe("journal");
      if (changes.kind === "journal") {
        for (const id of changes.sessionIds) seen.set(id, store.entry(id)?.size ?? -1);
      }
    };
    let running = true;
    const exits = Promise.all(children.map((child) => child.exited)).finally(() => {
      running = false;
    });
    while (running) {
      await follow();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const { code } of await exits) expect(code).toBe(0);
    await follow();
    for (const id of sessions) {
      expect(seen.get(id)).toBe(readFileSync(store.pathOf(id)).length);
      expect((await store.readSession(id)).lastSeq).toBe(count);
    }
    // Every record is whole: 2 per writer open (open + close), plus the 2 creations.
    const journal = readFileSync(join(temp.home, JOURNAL_FILE), "utf8").split("\n");
    expect(journal.at(-1)).toBe("");
    const records = journal.slice(1, -1);
    expect(records.every((line) => /^[ocndr] [0-9a-f-]{36}$/.test(line))).toBe(true);
    expect(records).toHaveLength(2 + 2 * 2 * count);
  }, 60_000);
});
