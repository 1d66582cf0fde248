import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_SYSTEM_PROMPT, toolDefinitions } from "@tapedeck/agent";
import { standardTools } from "@tapedeck/host";
import { scriptedRecording, startReplayServer } from "@tapedeck/llm-replay";
import { INTERRUPTED_OUTPUT } from "@tapedeck/session";
import { createMemoryQueryEngine } from "@tapedeck/session-query";
import { afterEach, describe, expect, it } from "vitest";
import { BINARY, tempWorkspace, waitFor } from "./binary";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The process exists and is not a zombie (an orphan's zombie may linger until init reaps it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

describe("kill -9 of the agent during run_command", () => {
  it("a resume ends the command that was left running and says so in the synthetic output", async () => {
    const workspace = await tempWorkspace();
    cleanups.push(workspace.cleanup);
    const pidFile = path.join(workspace.cwd, "sleep.pid");
    const command = `sleep 60 & echo $! > ${pidFile}; wait`;
    const recording = scriptedRecording({
      tools: toolDefinitions(standardTools(createMemoryQueryEngine(), "recording")),
    })
      .system(DEFAULT_SYSTEM_PROMPT)
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
    const server = await startReplayServer(recording.recording());
    cleanups.push(() => server.close());
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: workspace.root,
      TAPEDECK_HOME: workspace.home,
      TAPEDECK_MODEL: "openai:gpt-4.1-mini",
      OPENAI_API_KEY: "test-key-not-real",
      OPENAI_BASE_URL: server.url,
    };
    const run = (args: string[]) =>
      spawn(process.execPath, [BINARY, ...args], {
        cwd: workspace.cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });

    const agent = run(["run", "--approve", "start the server"]);
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
      if (alive(sleepPid)) process.kill(sleepPid, "SIGKILL");
    });
    agent.kill("SIGKILL");
    await exited;
    // Killing the agent does not end the command: it runs in its own process group.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive(sleepPid)).toBe(true);

    const [file] = await readdir(path.join(workspace.home, "sessions"));
    const sessionId = (file ?? "").replace(/\.jsonl$/, "");
    const resumed = run(["run", "--approve", "-r", sessionId, "again"]);
    let stdout = "";
    let stderr = "";
    resumed.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    resumed.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => resumed.on("exit", resolve));
    expect({ code, stdout }, stderr).toEqual({ code: 0, stdout: "Resumed.\n" });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    await waitFor(() => !alive(sleepPid), "the orphaned sleep to be ended", 5_000);

    const events = (await readFile(path.join(workspace.home, "sessions", file ?? ""), "utf8"))
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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

function readPid(file: string): number | undefined {
  try {
    const text = readFileSync(file, "utf8");
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
