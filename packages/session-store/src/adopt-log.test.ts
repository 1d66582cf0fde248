import { readFileSync } from "node:fs";
import { EventLogCorruptError, TapedeckError } from "@tapedeck/session";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { createSessionStore } from "./file-store";

const home = (name: string) => testTempDir(`tapedeck-adopt-${name}-`);
const seed = [
  { type: "x-test-note" as const, runId: "r", text: "one" },
  { type: "x-test-note" as const, runId: "r", text: "two" },
];

/** A session and a fork of it recorded in one home, as texts to adopt into another. */
async function recorded() {
  const source = createSessionStore({ home: home("source") });
  const parent = await source.create({ cwd: "/tmp", seed });
  const fork = await source.fork(parent.sessionId, { atSeq: 1 });
  await source.append(fork.sessionId, [{ type: "x-test-note", runId: "r", text: "forked" }]);
  const text = (id: string) => readFileSync(source.pathOf(id), "utf8");
  return { parent: parent.sessionId, fork: fork.sessionId, text };
}

describe("adoptLog", () => {
  it("adds a recorded session and its fork under another workspace, replayed as a read would", async () => {
    const logs = await recorded();
    const store = createSessionStore({ home: home("target") });
    const { cursor } = await store.changesSince(null);
    await store.adoptLog(logs.text(logs.parent), { workspaceId: "demo" });
    await store.adoptLog(logs.text(logs.fork), { workspaceId: "demo" });
    const fork = await store.readSession(logs.fork);
    expect(fork.header.workspaceId).toBe("demo");
    expect(fork.header.parent).toEqual({ sessionId: logs.parent, seq: 1 });
    expect(fork.events.map((event) => (event as { text?: string }).text)).toContain("forked");
    expect((await store.readHeader(logs.parent)).workspaceId).toBe("demo");
    // The change journal names both: an index following it sees them.
    const changes = await store.changesSince(cursor);
    expect(changes.kind === "journal" && changes.sessionIds).toEqual(
      [logs.parent, logs.fork].sort(),
    );
  });

  it("never overwrites: an existing id is SESSION_EXISTS and the log is unchanged", async () => {
    const logs = await recorded();
    const store = createSessionStore({ home: home("exists") });
    await store.adoptLog(logs.text(logs.parent));
    const before = readFileSync(store.pathOf(logs.parent), "utf8");
    const error = await store.adoptLog(logs.text(logs.parent)).catch((caught: unknown) => caught);
    expect(TapedeckError.isInstance(error) && error.code).toBe("SESSION_EXISTS");
    expect(readFileSync(store.pathOf(logs.parent), "utf8")).toBe(before);
  });

  it("refuses a damaged log and a fork whose parent is not here, writing nothing", async () => {
    const logs = await recorded();
    const store = createSessionStore({ home: home("damaged") });
    const lines = logs.text(logs.parent).split("\n");
    const gap = [lines[0], lines[2], ""].join("\n"); // seq 0 dropped
    await expect(store.adoptLog(gap)).rejects.toSatisfy(EventLogCorruptError.isInstance);
    await expect(store.adoptLog(logs.text(logs.fork))).rejects.toThrow(/not found|no session/i);
    expect(await store.sessionIds()).toEqual([]);
  });
});
