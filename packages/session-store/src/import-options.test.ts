import * as fs from "node:fs";
import { TapedeckError } from "@tapedeck/session";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it, vi } from "vitest";
import { createSessionStore } from "./file-store";

const store = () => createSessionStore({ home: testTempDir("tapedeck-import-opts-") });
const id = "019b4dc5-813f-743f-8c49-481b373d2ec1";
const seed = [
  { type: "x-test-note" as const, runId: "r", text: "hello", ts: "2025-12-24T00:32:29.373Z" },
  { type: "x-test-note" as const, runId: "r", text: "no time" },
];

describe("create and fork for importers", () => {
  it("create names the id, createdAt and origin, and keeps the seed's own timestamps", async () => {
    const s = store();
    const origin = { tool: "pi", sessionId: "src-1", path: "/x.jsonl" };
    const created = await s.create({
      cwd: "/tmp",
      sessionId: id,
      createdAt: "2025-12-24T00:32:27.967Z",
      origin,
      seed,
      keepTimestamps: true,
    });
    expect(created.header).toMatchObject({
      sessionId: id,
      createdAt: "2025-12-24T00:32:27.967Z",
      origin,
    });
    const session = await s.readSession(id);
    expect(session.header.origin).toEqual(origin);
    expect(session.events[0]?.ts).toBe("2025-12-24T00:32:29.373Z");
    expect(session.events[1]?.ts).not.toBe("2025-12-24T00:32:29.373Z");
  });

  it("without keepTimestamps the store's clock wins, as before", async () => {
    const s = store();
    const { events } = await s.create({ cwd: "/tmp", seed });
    expect(events[0]?.ts).not.toBe("2025-12-24T00:32:29.373Z");
  });

  it("refuses to create an id that exists (SESSION_EXISTS), leaving the log untouched", async () => {
    const s = store();
    await s.create({ cwd: "/tmp", sessionId: id });
    const error = await s.create({ cwd: "/tmp", sessionId: id }).catch((caught: unknown) => caught);
    expect(TapedeckError.isInstance(error) && error.code).toBe("SESSION_EXISTS");
  });

  it("fork names the child's id and origin", async () => {
    const s = store();
    await s.create({ cwd: "/tmp", sessionId: id, seed });
    const childId = "019b4dc5-813f-79b2-86c1-111fd8dea7a0";
    const fork = await s.fork(id, {
      atSeq: 1,
      sessionId: childId,
      origin: { tool: "pi", sessionId: "src#leaf" },
    });
    expect(fork.header).toMatchObject({
      sessionId: childId,
      parent: { sessionId: id, seq: 1 },
      origin: { tool: "pi" },
    });
    await s.append(
      childId,
      [{ type: "x-test-note", runId: "r", text: "later", ts: "2026-01-01T00:00:00Z" }],
      { keepTimestamps: true },
    );
    expect((await s.readSession(childId)).events.at(-1)?.ts).toBe("2026-01-01T00:00:00.000Z");
  });
});

describe("durable: false and syncLogs", () => {
  it("creates the log without waiting, and syncLogs flushes the batch (missing logs ignored)", async () => {
    const s = store();
    const { sessionId } = await s.create({ cwd: "/tmp", seed, durable: false });
    await s.syncLogs([sessionId, "019b4dc5-813f-743f-8c49-000000000000"]);
    expect((await s.readSession(sessionId)).events).toHaveLength(2);
  });

  it("flushes a new log through the descriptor kept since its create, keeping at most 64 open", async () => {
    const s = store();
    const ids: string[] = [];
    for (let index = 0; index < 66; index += 1) {
      ids.push((await s.create({ cwd: "/tmp", seed, durable: false })).sessionId);
    }
    const open = vi.spyOn(fs.promises, "open");
    try {
      await s.syncLogs(ids);
      // The two oldest were closed when the 65th and 66th were made: only they are opened again.
      const logs = open.mock.calls
        .map(([path]) => String(path))
        .filter((path) => path.endsWith(".jsonl"));
      expect(logs).toEqual([s.pathOf(ids[0]!), s.pathOf(ids[1]!)]);
    } finally {
      open.mockRestore();
    }
    for (const id of ids) expect((await s.readSession(id)).events).toHaveLength(2);
  });
});
