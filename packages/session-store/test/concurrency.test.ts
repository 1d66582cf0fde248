import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSessionStore, type SessionStore } from "../src/index";
import { bundleWriterChild, spawnChild } from "./child-process";
import { tempDirectory } from "./helpers";

let script: string;
let temp: ReturnType<typeof tempDirectory>;
let store: SessionStore;

beforeAll(async () => {
  script = await bundleWriterChild();
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
});
