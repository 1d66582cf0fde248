import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type AnyAgentTool, defaultTools } from "@tapedeck/agent";
import { isProcessAlive, type ScriptStep, scriptedProvider } from "@tapedeck/agent/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { testWorkspace } from "@tapedeck/test-temp";
import { describe, expect, it, onTestFinished } from "vitest";
import { startRun } from "./start-run";

/**
 * A run whose `run_command` leaves a child that escaped its process group holding the pipes
 * (issue #27, item 4): the viewer's run stayed `cancelling` and the session `SESSION_BUSY` until
 * the child exited. Cancel and timeout both end the run, and free the session, within seconds.
 */
async function escapedChildRun(steps: ScriptStep[]) {
  const { cwd, home } = await testWorkspace("tapedeck-escaped-");
  const store = createSessionStore({ home });
  const tools: AnyAgentTool[] = defaultTools();
  const host = {
    store,
    model: "openai:gpt-4.1-mini",
    providerFor: () => scriptedProvider(steps),
    toolsFor: () => tools,
  };
  const pidFile = path.join(cwd, "escaped.pid");
  onTestFinished(() => {
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : 0;
    if (pid > 0 && isProcessAlive(pid)) process.kill(pid, "SIGKILL");
  });
  const start = (sessionId?: string) =>
    startRun(host, {
      input: "start it",
      policy: { approval: "auto" },
      callerCwd: cwd,
      ...(sessionId === undefined ? {} : { sessionId }),
    });
  return { pidFile, start };
}

const command = (timeoutSeconds?: number) => ({
  callId: "call_1",
  name: "run_command",
  arguments: {
    command: `setsid bash -c 'echo $$ > escaped.pid; exec sleep 40' & echo started; sleep 30`,
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
  },
});

describe("a run whose command leaves an escaped child", () => {
  it("cancel ends the run and frees the session within seconds", async () => {
    const space = await escapedChildRun([{ calls: [command()] }, { text: "never" }]);
    const controller = new AbortController();
    const prepared = await space.start();
    let cancelledAt = 0;
    const running = prepared.run({
      signal: controller.signal,
      onNotice: (notice) => {
        if (notice.type !== "tool_started") return;
        const poll = setInterval(() => {
          if (!existsSync(space.pidFile)) return;
          clearInterval(poll);
          cancelledAt = Date.now();
          controller.abort();
        }, 20);
      },
    });
    const result = await running;
    expect(result.stopReason).toBe("cancelled");
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    // The session is free: the next run opens it at once.
    const next = await space.start(result.sessionId);
    expect(next.sessionId).toBe(result.sessionId);
    await next.run({ signal: AbortSignal.abort() });
  }, 15_000);

  it("a timeout ends the call and the turn goes on within seconds", async () => {
    const space = await escapedChildRun([{ calls: [command(1)] }, { text: "done" }]);
    const started = Date.now();
    const prepared = await space.start();
    const result = await prepared.run({});
    expect(result.stopReason).toBe("end_turn");
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 15_000);
});
