import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { isProcessAlive } from "@tapedeck/agent/testing";
import { INTERRUPTED_OUTPUT } from "@tapedeck/session";
import { agentScript, cliContext, tapedeckBinary, waitFor } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("kill -9 of the agent during run_command", () => {
  it("a resume ends the command that was left running and says so in the synthetic output", async () => {
    const command = `sleep 60 & echo $! > sleep.pid; wait`;
    const recording = agentScript()
      .user("start the server")
      .toolCall("run_command", { command })
      .toolResult(
        `${INTERRUPTED_OUTPUT} Its process group was still running after the crash and has been ended (SIGTERM).`,
        { isError: true },
      )
      .user("again")
      .text("Resumed.")
      .end()
      .build();
    // Strict: the resumed request must carry exactly this synthetic output.
    const { workspace, server, env, cli, logs } = await cliContext(recording);
    const pidFile = path.join(workspace.cwd, "sleep.pid");

    const agent = spawn(
      process.execPath,
      [tapedeckBinary(), "run", "--approve", "start the server"],
      {
        cwd: workspace.cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise((resolve) => agent.on("exit", resolve));
    cleanups.push(() => {
      if (agent.exitCode === null && agent.signalCode === null) agent.kill("SIGKILL");
    });
    let sleepPid = 0;
    await waitFor(() => {
      const text = readPid(pidFile);
      if (text !== undefined) sleepPid = text;
      return sleepPid > 0;
    }, "the command's pid file");
    cleanups.push(() => {
      if (isProcessAlive(sleepPid)) process.kill(sleepPid, "SIGKILL");
    });
    agent.kill("SIGKILL");
    await exited;
    // Killing the agent does not end the command: it runs in its own process group. (The
    // SIGKILL went to the agent alone and the agent is gone: nothing else can signal it now.)
    expect(isProcessAlive(sleepPid)).toBe(true);

    const [sessionId = ""] = await logs.sessionIds();
    const { code, stdout, stderr } = await cli(["run", "--approve", "-r", sessionId, "again"]);
    expect({ code, stdout }, stderr).toEqual({ code: 0, stdout: "Resumed.\n" });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    await waitFor(() => !isProcessAlive(sleepPid), "the orphaned sleep to be ended", 5_000);

    const events = (await logs.lines(sessionId)).slice(1);
    const started = events.find((event) => event.type === "x-process/start");
    expect(started).toMatchObject({
      callId: expect.any(String),
      process: { host: expect.any(String) },
    });
    const repair = events.find(
      (event) => event.type === "function_call_output" && event.synthetic === true,
    );
    expect(repair?.output).toMatch(
      /^Error \[SESSION_RESUME_INTERRUPTED\].* Its process group was still running after the crash and has been ended \(SIGTERM\)\.$/,
    );
  });
});

describe("kill -9 of the agent while a command's first process has exited (issue 28, item 2)", () => {
  it("a resume ends the group's members left running and says so, not that the group was gone", async () => {
    const command = `sleep 61 & echo $! > sleep.pid; sleep 2`;
    const recording = agentScript()
      .user("start it")
      .toolCall("run_command", { command })
      .toolResult(
        `${INTERRUPTED_OUTPUT} Its process group was still running after the crash and has been ended (SIGTERM).`,
        { isError: true },
      )
      .user("again")
      .text("Resumed.")
      .end()
      .build();
    const { workspace, server, env, cli, logs } = await cliContext(recording);
    const pidFile = path.join(workspace.cwd, "sleep.pid");
    const agent = spawn(process.execPath, [tapedeckBinary(), "run", "--approve", "start it"], {
      cwd: workspace.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => agent.on("exit", resolve));
    cleanups.push(() => {
      if (agent.exitCode === null && agent.signalCode === null) agent.kill("SIGKILL");
    });
    let sleepPid = 0;
    await waitFor(() => {
      sleepPid = readPid(pidFile) ?? 0;
      return sleepPid > 0;
    }, "the command's pid file");
    cleanups.push(() => {
      if (isProcessAlive(sleepPid)) process.kill(sleepPid, "SIGKILL");
    });
    agent.kill("SIGKILL");
    await exited;
    const [sessionId = ""] = await logs.sessionIds();
    const started = (await logs.lines(sessionId)).find((event) => event.type === "x-process/start");
    const leader = Number((started?.process as { pid?: number } | undefined)?.pid);
    expect(leader).toBeGreaterThan(0);
    // The command's first process (the group leader) finishes and is reaped (gone from the
    // process table, not a zombie); `sleep 61` of its group runs on.
    await waitFor(() => !existsSync(`/proc/${leader}`), "the group leader to be reaped", 15_000);
    expect(isProcessAlive(sleepPid)).toBe(true);

    const { code, stdout, stderr } = await cli(["run", "--approve", "-r", sessionId, "again"]);
    expect({ code, stdout }, stderr).toEqual({ code: 0, stdout: "Resumed.\n" });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    await waitFor(() => !isProcessAlive(sleepPid), "the orphaned sleep to be ended", 5_000);
  });
});

function readPid(file: string): number | undefined {
  try {
    const text = readFileSync(file, "utf8");
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
