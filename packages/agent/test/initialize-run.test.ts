import { readFile } from "node:fs/promises";
import path from "node:path";
import { INTERRUPTED_OUTPUT, SessionNotFoundError, TapedeckError, uuidv7 } from "@tapedeck/session";
import { beforeEach, describe, expect, it } from "vitest";
import { initializeRunIn, type Sandbox, sandbox } from "./helpers";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});

async function lines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A session whose last turn was cut off with a tool call pending. */
async function interruptedSession(): Promise<string> {
  const first = await initializeRunIn(box, "hi");
  await first.writer.append([
    {
      type: "function_call",
      runId: first.runId,
      callId: "call_1",
      name: "run_command",
      arguments: "{}",
    },
  ]);
  await first.writer.close();
  return first.sessionId;
}

describe("initializeRun", () => {
  it("refuses a resume and a fork at once with a coded TapedeckError, writing nothing", async () => {
    const first = await initializeRunIn(box, "hi");
    await first.writer.close();
    const both = initializeRunIn(box, "again", {
      sessionId: first.sessionId,
      forkFrom: { sessionId: first.sessionId },
    });
    await expect(both).rejects.toSatisfy(
      (error: unknown) => TapedeckError.isInstance(error) && error.code === "INVALID_RUN_OPTIONS",
    );
    expect(await box.store.list()).toHaveLength(1);
  });

  it("new: creates the file with header, seed, turn/start and the user message", async () => {
    const run = await initializeRunIn(box, "hello");
    await run.writer.close();
    expect(run.resumed).toBe(false);
    expect(run.history.map((item) => item.type === "message" && item.role)).toEqual([
      "system",
      "user",
    ]);
    expect(run.history.at(-1)).toEqual({ type: "message", role: "user", content: "hello" });
    const file = await lines(box.store.pathOf(run.sessionId));
    expect(file.map((line) => line.type)).toEqual(["session", "message", "turn/start", "message"]);
    expect(file[2]).toMatchObject({
      runId: run.runId,
      resumed: false,
      policy: { approval: "auto" },
      model: "openai:gpt-4.1-mini",
    });
    expect(run.newEventsToPersist.map((event) => event.type)).toEqual([
      "message",
      "turn/start",
      "message",
    ]);
  });

  it("resume: writes only the repairs, turn/start and the user message; history is surface + repairs + input", async () => {
    const sessionId = await interruptedSession();
    const before = await lines(box.store.pathOf(sessionId));
    const run = await initializeRunIn(box, "again", { sessionId });
    await run.writer.close();
    const after = await lines(box.store.pathOf(sessionId));
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((line) => line.type)).toEqual([
      "function_call_output",
      "turn/end",
      "turn/start",
      "message",
    ]);
    expect(after[before.length]).toMatchObject({
      output: INTERRUPTED_OUTPUT,
      synthetic: true,
      isError: true,
    });
    expect(after[before.length + 1]).toMatchObject({ status: "interrupted", synthetic: true });
    expect(run.resumed).toBe(true);
    expect(run.history.map((item) => item.type)).toEqual([
      "message",
      "message",
      "function_call",
      "function_call_output",
      "message",
    ]);
    expect(run.newEventsToPersist).toHaveLength(4);
  });

  it("resume of a clean session writes no repairs", async () => {
    const first = await initializeRunIn(box, "one");
    await first.writer.append([{ type: "turn/end", runId: first.runId, status: "completed" }]);
    await first.writer.close();
    const run = await initializeRunIn(box, "two", { sessionId: first.sessionId });
    await run.writer.close();
    expect(run.newEventsToPersist.map((event) => event.type)).toEqual(["turn/start", "message"]);
  });

  it("resume of an unknown id throws SessionNotFoundError and creates no file", async () => {
    const missing = uuidv7();
    await expect(initializeRunIn(box, "x", { sessionId: missing })).rejects.toSatisfy((error) =>
      SessionNotFoundError.isInstance(error),
    );
    expect(await box.store.sessionIds()).not.toContain(missing);
    expect(box.store.entry(missing)).toBeNull();
  });

  it("fork: a new child file with the parent's surface up to seq, repairs and the new input", async () => {
    const parentId = await interruptedSession();
    const run = await initializeRunIn(box, "branch", { forkFrom: { sessionId: parentId, seq: 4 } });
    await run.writer.close();
    expect(run.sessionId).not.toBe(parentId);
    const child = await lines(box.store.pathOf(run.sessionId));
    expect(child[0]).toMatchObject({ type: "session", parent: { sessionId: parentId, seq: 4 } });
    expect(child.slice(1).map((line) => line.type)).toEqual([
      "function_call_output",
      "turn/end",
      "turn/start",
      "message",
    ]);
    expect(child[1]).toMatchObject({ seq: 5 });
    expect(run.history.at(-1)).toEqual({ type: "message", role: "user", content: "branch" });
    // The parent is untouched.
    const parent = await lines(box.store.pathOf(parentId));
    expect(parent.map((line) => line.type)).toEqual([
      "session",
      "message",
      "turn/start",
      "message",
      "function_call",
    ]);
    expect(path.dirname(box.store.pathOf(run.sessionId))).toBe(box.store.sessionsDir);
  });
});
