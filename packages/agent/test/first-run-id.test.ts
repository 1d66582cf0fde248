import { beforeEach, describe, expect, it } from "vitest";
import { initializeRun } from "../src/index";
import { type Sandbox, sandbox } from "./helpers";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});

const policy = { approval: "auto" } as const;
const model = "openai:gpt-4.1-mini";

describe("runId of a session's first run", () => {
  it("is the sessionId for a new session (seed included); later runs get fresh ids", async () => {
    const first = await initializeRun({
      store: box.store,
      input: "one",
      cwd: box.cwd,
      policy,
      model,
    });
    await first.writer.append([{ type: "turn/end", runId: first.runId, status: "completed" }]);
    await first.writer.close();
    expect(first.runId).toBe(first.sessionId);
    expect(new Set(first.newEventsToPersist.map((event) => event.runId))).toEqual(
      new Set([first.sessionId]),
    );
    const second = await initializeRun({
      store: box.store,
      sessionId: first.sessionId,
      input: "two",
      cwd: box.cwd,
      policy,
      model,
    });
    await second.writer.close();
    expect(second.runId).not.toBe(first.sessionId);
  });

  it("is the sessionId for the first run of a session created ahead of its first turn", async () => {
    const created = await box.store.create({
      cwd: box.cwd,
      seed: [{ type: "message", runId: "setup", role: "system", content: "s" }],
    });
    const run = await initializeRun({
      store: box.store,
      sessionId: created.sessionId,
      input: "one",
      cwd: box.cwd,
      policy,
      model,
    });
    await run.writer.close();
    expect(run.runId).toBe(created.sessionId);
  });

  it("an explicit runId still wins", async () => {
    const run = await initializeRun({
      store: box.store,
      input: "one",
      cwd: box.cwd,
      policy,
      model,
      runId: "0194a000-0000-7000-8000-0000000000aa",
    });
    await run.writer.close();
    expect(run.runId).toBe("0194a000-0000-7000-8000-0000000000aa");
  });
});
