import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore } from "../src/index";
import { bundleChild, spawnChild } from "./child-process";
import { tempDirectory } from "./helpers";

let script: string;
let temp: ReturnType<typeof tempDirectory>;

beforeAll(async () => {
  script = await bundleChild("new-log-child");
  temp = tempDirectory();
});
afterAll(() => {
  temp.cleanup();
  rmSync(dirname(script), { recursive: true, force: true });
});

describe("a crash while a new log is created", () => {
  it("between writing a spare temp file and linking it leaves no log, only temp files never listed, removed by the next store's listing", async () => {
    const first = "019b4dc5-813f-743f-8c49-481b373d2e01";
    const second = "019b4dc5-813f-743f-8c49-481b373d2e02";
    const child = spawnChild(script, [temp.home, first, second]);
    const spare = (await child.waitFor((line) => line.startsWith("spare "))).slice(6);
    expect(await child.exited).toMatchObject({ signal: "SIGKILL" });
    const store = createSessionStore({ home: temp.home });
    // The bytes were in a temp file made ahead; the log itself was never there, not even in part.
    expect(spare).toMatch(/\/\.new-log\.[^/]+\.tmp$/);
    expect(existsSync(spare)).toBe(true);
    expect(existsSync(store.pathOf(second))).toBe(false);
    expect(await store.sessionIds()).toEqual([first]);
    // That listing removed the temp files of the killed process: no copy of the log stays behind.
    expect(existsSync(spare)).toBe(false);
    expect(readdirSync(store.sessionsDir).filter((name) => !name.endsWith(".tmp"))).toEqual([
      `${first}.jsonl`,
    ]);
    expect((await store.readSession(first)).events).toHaveLength(1);
    await store.create({ cwd: "/tmp", sessionId: second });
    expect((await store.readSession(second)).header.sessionId).toBe(second);
  });
});
