import { beforeEach, describe, expect, it } from "vitest";
import { initializeRunIn, type Sandbox, sandbox } from "./helpers";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});

describe("runId of a session's first run", () => {
  it("is the sessionId for a new session (seed included); later runs get fresh ids", async () => {
    const first = await initializeRunIn(box, "one");
    await first.writer.append([{ type: "turn/end", runId: first.runId, status: "completed" }]);
    await first.writer.close();
    expect(first.runId).toBe(first.sessionId);
    expect(new Set(first.newEventsToPersist.map((event) => event.runId))).toEqual(
      new Set([first.sessionId]),
    );
    const second = await initializeRunIn(box, "two", { sessionId: first.sessionId });
    await second.writer.close();
    expect(second.runId).not.toBe(first.sessionId);
  });

  it("is the sessionId for the first run of a session created ahead of its first turn", async () => {
    const created = await box.store.create({
      cwd: box.cwd,
      seed: [{ type: "message", runId: "setup", role: "system", content: "s" }],
    });
    const run = await initializeRunIn(box, "one", { sessionId: created.sessionId });
    await run.writer.close();
    expect(run.runId).toBe(created.sessionId);
  });

  it("an explicit runId still wins", async () => {
    const run = await initializeRunIn(box, "one", {
      runId: "0194a000-0000-7000-8000-0000000000aa",
    });
    await run.writer.close();
    expect(run.runId).toBe("0194a000-0000-7000-8000-0000000000aa");
  });
});
