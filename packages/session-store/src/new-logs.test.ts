import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { createSessionStore } from "./file-store";

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

/** Waits for `condition`, then one turn of the event loop (callbacks of what it saw on disk). */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
}

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
