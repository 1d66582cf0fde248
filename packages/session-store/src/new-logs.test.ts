import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { deadPid, until } from "../test/helpers";
import { createSessionStore } from "./file-store";
import { NewLogs } from "./new-logs";

const seed = [
  {
    type: "x-test-note" as const,
    runId: "r",
    text: "a note\n".repeat(500),
    ts: "2025-12-24T00:32:28.000Z",
  },
  { type: "x-test-note" as const, runId: "r", text: "another", ts: "2025-12-24T00:32:29.373Z" },
];
const ids = Array.from({ length: 6 }, (_, index) => `019b4dc5-813f-743f-8c49-48100000000${index}`);
const options = (sessionId: string) => ({
  cwd: "/tmp",
  workspaceId: "/tmp",
  sessionId,
  createdAt: "2025-12-24T00:00:00.000Z",
  keepTimestamps: true,
  seed,
});

const temps = (folder: string) => readdirSync(folder).filter((name) => name.endsWith(".tmp"));
const inode = (path: string) => statSync(path).ino;

describe("new logs written without fsync", () => {
  it("go into empty temp files made ahead on the thread pool: the same bytes, never listed, removed once synced", async () => {
    const store = createSessionStore({ home: testTempDir("tapedeck-new-logs-") });
    const durable = createSessionStore({ home: testTempDir("tapedeck-new-logs-") });
    await store.create({ ...options(ids[0]!), durable: false });
    await until(() => temps(store.sessionsDir).length >= 8);
    const spares = new Set(
      temps(store.sessionsDir).map((name) => inode(join(store.sessionsDir, name))),
    );
    expect(temps(store.sessionsDir).every((name) => name.startsWith(".new-log."))).toBe(true);
    for (const sessionId of ids.slice(1))
      await store.create({ ...options(sessionId), durable: false });
    // The first log had no spare yet; the next ones are spares, linked into place.
    expect(spares.has(inode(store.pathOf(ids[0]!)))).toBe(false);
    expect(spares.has(inode(store.pathOf(ids[1]!)))).toBe(true);
    expect((await store.sessionIds()).sort()).toEqual([...ids].sort());
    for (const sessionId of ids) {
      await durable.create(options(sessionId));
      expect(
        readFileSync(store.pathOf(sessionId)).equals(readFileSync(durable.pathOf(sessionId))),
      ).toBe(true);
    }
    await store.syncLogs(ids);
    // Spares still being made when the last log was synced are removed as they arrive.
    await until(() => temps(store.sessionsDir).length === 0);
    for (const sessionId of ids)
      expect((await store.readSession(sessionId)).events).toHaveLength(2);
  });

  it("a log that exists is left alone, and no spare is left behind", async () => {
    const store = createSessionStore({ home: testTempDir("tapedeck-new-logs-") });
    await store.create({ ...options(ids[0]!), durable: false });
    await until(() => temps(store.sessionsDir).length >= 8);
    const before = readFileSync(store.pathOf(ids[0]!));
    await expect(
      store.create({ ...options(ids[0]!), seed: [], durable: false }),
    ).rejects.toMatchObject({ code: "SESSION_EXISTS" });
    expect(readFileSync(store.pathOf(ids[0]!)).equals(before)).toBe(true);
    await store.syncLogs([ids[0]!]);
    await until(() => temps(store.sessionsDir).length === 0);
  });
});

describe("spares an interrupted import left", () => {
  it("are removed by the next store that makes spares; those of running processes are kept unless an hour old", async () => {
    const home = testTempDir("tapedeck-new-logs-");
    const sessionsDir = join(home, "sessions");
    mkdirSync(sessionsDir, { recursive: true });
    const name = (pid: number, n: number) => `.new-log.${pid}.0123456789ab.${n}.tmp`;
    const dead = [name(deadPid(), 1), name(deadPid(), 2)];
    const live = name(process.pid, 3);
    const oldLive = name(process.pid, 4);
    const others = [".new-log.12.tmp", ".other.1.0123456789ab.1.tmp", "notes.tmp"];
    for (const file of [...dead, live, oldLive, ...others])
      writeFileSync(join(sessionsDir, file), "");
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(sessionsDir, oldLive), twoHoursAgo, twoHoursAgo);
    const logs = new NewLogs(sessionsDir, home, (sessionId) =>
      join(sessionsDir, `${sessionId}.jsonl`),
    );
    logs.write(ids[0]!, Buffer.from("{}\n"), false);
    await logs.sweptLeftovers();
    const left = new Set(readdirSync(sessionsDir));
    for (const file of [...dead, oldLive]) expect(left.has(file)).toBe(false);
    for (const file of [live, ...others]) expect(left.has(file)).toBe(true);
    await logs.sync([ids[0]!]);
  });

  it("a process stopped by Ctrl-C in an import leaves spares the next import removes", async () => {
    const home = testTempDir("tapedeck-new-logs-");
    const store = createSessionStore({ home });
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import { createSessionStore } from ${JSON.stringify(join(import.meta.dirname, "file-store.ts"))};
         const store = createSessionStore({ home: ${JSON.stringify(home)} });
         await store.create({ ...${JSON.stringify(options(ids[0]!))}, durable: false });
         const { readdirSync } = await import("node:fs");
         while (!readdirSync(store.sessionsDir).some((name) => name.endsWith(".tmp")))
           await new Promise((resolve) => setTimeout(resolve, 5));
         process.kill(process.pid, "SIGINT");`,
      ],
      { encoding: "utf8" },
    );
    expect(child.signal).toBe("SIGINT");
    expect(temps(store.sessionsDir).length).toBeGreaterThan(0);
    await store.create({ ...options(ids[1]!), durable: false });
    await store.syncLogs([ids[1]!]);
    await until(() => temps(store.sessionsDir).length === 0);
    expect((await store.sessionIds()).sort()).toEqual([ids[0]!, ids[1]!].sort());
  });
});
