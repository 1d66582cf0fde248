import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { convertTapedeckExport } from "./tapedeck";
import { fileOf, replays } from "./test-lines";

/** A parent with one turn, a fork of it with one more, and the fork's export (parent inlined). */
async function forkExport(): Promise<{ lines: unknown[]; forkId: string }> {
  const store = createSessionStore({ home: testTempDir("tapedeck-export-") });
  const { sessionId } = await store.create({ cwd: "/tmp" });
  const turn = (runId: string, text: string) => [
    {
      type: "turn/start" as const,
      runId,
      policy: { approval: "ask" as const },
      model: "openai:m",
      resumed: false,
    },
    { type: "message" as const, runId, role: "user" as const, content: text },
    { type: "turn/end" as const, runId, status: "completed" as const },
  ];
  await store.append(sessionId, turn("r1", "parent question"));
  const fork = await store.fork(sessionId);
  await store.append(fork.sessionId, turn("r2", "fork question"));
  const session = await store.readSession(fork.sessionId);
  // What `tapedeck sessions export` writes: the header (with parent) and every event from seq 1.
  return { lines: [session.header, ...session.events], forkId: fork.sessionId };
}

describe("convertTapedeckExport", () => {
  it("reads a fork's export (parent inlined) as one self-contained session", async () => {
    const { lines, forkId } = await forkExport();
    const { sessions, skipped } = convertTapedeckExport(fileOf("/e/fork.jsonl", lines));
    expect(skipped).toEqual([]);
    const session = sessions[0]!;
    expect(session.key).toEqual({ tool: "tapedeck", sessionId: forkId });
    expect(session.originFields?.parent).toMatchObject({ seq: 3 });
    expect(session.events).toHaveLength(6);
    expect(session.events[0]).not.toHaveProperty("seq");
    replays(session);
  });

  it("refuses a file whose first line is not a header, and stops at the first invalid event", async () => {
    expect(
      convertTapedeckExport(fileOf("/e/x.jsonl", [{ type: "message" }])).skipped[0]?.reason,
    ).toBe("not a Tapedeck session header");
    const { lines } = await forkExport();
    const damaged = [...lines.slice(0, 3), { ...(lines[3] as object), seq: 9 }, ...lines.slice(4)];
    const { sessions, skipped } = convertTapedeckExport(fileOf("/e/y.jsonl", damaged));
    expect(sessions[0]?.events).toHaveLength(2);
    expect(skipped.map((skip) => skip.reason)).toEqual([
      "SEQ_GAP",
      "after an invalid event (SEQ_GAP)",
      "after an invalid event (SEQ_GAP)",
      "after an invalid event (SEQ_GAP)",
    ]);
  });

  it("refuses a fork's own log (events after its parent's) in one record that says what to import", async () => {
    const { lines } = await forkExport();
    const header = lines[0] as { parent: { seq: number } };
    const own = lines
      .slice(1)
      .filter((event) => (event as { seq: number }).seq > header.parent.seq);
    const { sessions, skipped } = convertTapedeckExport(fileOf("/s/fork.jsonl", [header, ...own]));
    expect(sessions).toEqual([]);
    expect(skipped).toEqual([
      {
        path: "/s/fork.jsonl",
        line: 0,
        offset: 0,
        reason:
          "a fork's log without its parent's events: import what `tapedeck sessions export ID` writes",
      },
    ]);
  });
});
