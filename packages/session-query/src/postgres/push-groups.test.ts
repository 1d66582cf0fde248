/**
 * Push transactions run two at a time: what one needs from an earlier one (a fork's output
 * answering a call its parent made) is still found, as if they ran one after the other.
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { uuidv7 } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPostgresQueryEngine } from "./postgres-engine";
import { indexContents } from "./push-test-helpers";

describe("push transactions at once", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("resolves a fork's outputs to the tool its parent called, pushed in another transaction", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-push-groups-"));
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
    fs.mkdirSync(join(home, "sessions"));
    const write = (log: ReturnType<typeof eventLogBuilder>) =>
      fs.writeFileSync(join(home, "sessions", `${log.header.sessionId}.jsonl`), log.jsonl());
    const start = Date.parse("2026-06-01T10:00:00.000Z");
    // Parents (with calls) and forks made while a call was running, each its own transaction.
    const forks: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      const parent = eventLogBuilder({ sessionId: uuidv7(start + index * 10) });
      parent
        .turn({ runId: `run-${index}` })
        .user(`check ${index}`)
        .call("shell", { n: index }, `call-${index}`);
      write(parent);
      const fork = eventLogBuilder({
        sessionId: uuidv7(start + index * 10 + 5),
        parent: { sessionId: parent.header.sessionId, seq: 3 },
      });
      // The call is in the parent (seq 3): the output cites it there, as replay requires.
      fork.push({
        type: "function_call_output",
        runId: `run-${index}`,
        callId: `call-${index}`,
        output: `checked heron ${index}`,
        isError: false,
        sourceEventSeqs: [3],
      });
      write(fork);
      forks.push(fork.header.sessionId);
    }
    const engine = await createPostgresQueryEngine({ url: database.url });
    cleanups.push(() => engine.close());
    const report = await engine.push(createSessionStore({ home }), { sessionsPerTransaction: 1 });
    expect(report.eventsPushed).toBe(6 * 4);
    const hits = await engine.searchEvents({ all: true }, { text: "heron", toolName: "shell" });
    expect(hits.items.map((hit) => hit.sessionId).sort()).toEqual([...forks].sort());
    expect(await indexContents(database.url)).toMatchObject({ sessions: 12, consistent: true });
  }, 60_000);
});
