import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { INTERRUPTED_OUTPUT, PROCESS_START_EVENT, type ToolProcess } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createRunCommandTool,
  initializeRun,
  localWorkspaceFs,
  type ToolContext,
} from "../src/index";
import { endOrphanGroup } from "../src/orphan-group";
import { describeProcessGroup, signalGroup } from "../src/process-group";
import { isProcessAlive, type Sandbox, sandbox } from "./helpers";

let box: Sandbox;
const spawned: number[] = [];
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  for (const pid of spawned.splice(0)) signalGroup(pid, "SIGKILL");
});

function context(onProcessStart?: ToolContext["onProcessStart"]): ToolContext {
  return {
    cwd: box.cwd,
    fs: localWorkspaceFs,
    signal: new AbortController().signal,
    sessionId: "s",
    ...(onProcessStart === undefined ? {} : { onProcessStart }),
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 5_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A detached `sleep 60` in its own group, as run_command starts commands. */
function detachedSleep(): number {
  const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  child.unref();
  const pid = child.pid ?? 0;
  spawned.push(pid);
  return pid;
}

describe("run_command process groups", () => {
  it("reports its process group before any of the command runs, and the leader is the command", async () => {
    const tool = createRunCommandTool();
    const marker = path.join(box.cwd, "ran");
    let recorded: ToolProcess | undefined;
    let release: () => void = () => undefined;
    const running = tool.execute(
      tool.argsSchema.parse({ command: `echo $$ > ${marker}; echo pid=$$` }),
      context((process) => {
        recorded = process;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      }),
    );
    await until(() => recorded !== undefined, "the process record");
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(readFile(marker, "utf8")).rejects.toThrow(/ENOENT/);
    release();
    const output = await running;
    expect(output).toBe(`exit code 0\npid=${recorded?.pid}\n`);
    expect(recorded).toMatchObject({ pgid: recorded?.pid });
    expect(Date.parse(recorded?.startedAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });

  it("does not run the command when its process cannot be logged", async () => {
    const tool = createRunCommandTool();
    const marker = path.join(box.cwd, "ran");
    await expect(
      tool.execute(
        tool.argsSchema.parse({ command: `touch ${marker}` }),
        context(async () => {
          throw new Error("disk full");
        }),
      ),
    ).rejects.toThrow(/not run: its process could not be logged \(disk full\)/);
    await expect(readFile(marker, "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("a timeout kills the whole group, background children included", async () => {
    const tool = createRunCommandTool();
    const pidFile = path.join(box.cwd, "child.pid");
    await expect(
      tool.execute(
        tool.argsSchema.parse({
          command: `sleep 60 & echo $! > ${pidFile}; wait`,
          timeoutSeconds: 1,
        }),
        context(),
      ),
    ).rejects.toThrow(/timed out/);
    const child = Number(await readFile(pidFile, "utf8"));
    await until(() => !isProcessAlive(child), "the background sleep to die");
  });
});

describe("endOrphanGroup", () => {
  it("ends a group that is still the logged one", async () => {
    const pid = detachedSleep();
    const record = describeProcessGroup(pid);
    expect(await endOrphanGroup(record)).toEqual({ status: "ended", signal: "SIGTERM" });
    await until(() => !isProcessAlive(pid), "the sleep to die");
  });

  it("leaves a process alone whose start time differs from the record (a recycled pid)", async () => {
    const pid = detachedSleep();
    const logged = describeProcessGroup(pid);
    const record = {
      ...logged,
      startedAt: new Date(Date.now() - 3_600_000).toISOString(),
      startTicks: (logged.startTicks ?? 0) - 360_000,
    };
    expect(await endOrphanGroup(record)).toEqual({ status: "not-ours" });
    expect(isProcessAlive(pid)).toBe(true);
  });

  it("never signals a group recorded on another host, and reports a finished one as gone", async () => {
    const pid = detachedSleep();
    const record = describeProcessGroup(pid);
    expect(await endOrphanGroup({ ...record, host: "elsewhere.invalid" })).toEqual({
      status: "other-host",
      host: "elsewhere.invalid",
    });
    expect(isProcessAlive(pid)).toBe(true);
    signalGroup(pid, "SIGKILL");
    await until(() => !isProcessAlive(pid), "the sleep to die");
    expect(await endOrphanGroup(record)).toEqual({ status: "gone" });
  });
});

describe("endOrphanGroup acts only on what this machine proves (issue 27 item 5, issue 28 item 2)", () => {
  it("never signals a group the record names when the checked process does not lead it", async () => {
    const checked = detachedSleep();
    const victim = detachedSleep();
    // A crafted record: a live process with its true start time, and someone else's group.
    const record = { ...describeProcessGroup(checked), pgid: victim };
    // It returns after every signal it sends (and the SIGKILL after the grace): none went out.
    expect(await endOrphanGroup(record, { graceMs: 200 })).toEqual({ status: "not-ours" });
    expect(isProcessAlive(victim)).toBe(true);
    expect(isProcessAlive(checked)).toBe(true);
  });

  it("leaves a record alone that names no boot (an older or imported log), and one from another boot", async () => {
    const pid = detachedSleep();
    const { bootId: _boot, startTicks: _ticks, ...bare } = describeProcessGroup(pid);
    expect(await endOrphanGroup(bare)).toEqual({ status: "unproven" });
    const otherBoot = {
      ...describeProcessGroup(pid),
      bootId: "00000000-0000-0000-0000-000000000000",
    };
    expect(await endOrphanGroup(otherBoot)).toEqual({ status: "other-boot" });
    expect(isProcessAlive(pid)).toBe(true);
  });

  it("ends the group's marked members after its leader has exited, and only those", async () => {
    const tool = createRunCommandTool();
    let recorded: ToolProcess | undefined;
    const output = await tool.execute(
      tool.argsSchema.parse({
        command:
          "sleep 61 >/dev/null 2>&1 & echo $! > marked.pid; env -u TAPEDECK_CALL_MARKER sleep 62 >/dev/null 2>&1 & echo $! > unmarked.pid",
      }),
      context(async (process) => {
        recorded = process;
      }),
    );
    expect(output).toBe("exit code 0\n");
    const marked = Number(await readFile(path.join(box.cwd, "marked.pid"), "utf8"));
    const unmarked = Number(await readFile(path.join(box.cwd, "unmarked.pid"), "utf8"));
    spawned.push(marked, unmarked);
    // `env -u … sleep` carries the marker until it has exec'd sleep: wait for that, or a loaded
    // machine lets endOrphanGroup find the marker in `env` and end it.
    const execd = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0");
      } catch {
        return false;
      }
    };
    await until(() => execd(marked) && execd(unmarked), "both sleeps to start");
    expect(recorded?.marker).toMatch(/^[0-9a-f]{64}$/);
    expect(isProcessAlive(marked)).toBe(true);
    const record = recorded as ToolProcess;
    expect(isProcessAlive(record.pid)).toBe(false);
    expect(await endOrphanGroup(record)).toEqual({ status: "ended", signal: "SIGTERM" });
    await until(() => !isProcessAlive(marked), "the marked sleep to die");
    // Same group, but nothing proves it is the call's: left alone.
    expect(isProcessAlive(unmarked)).toBe(true);
    process.kill(unmarked, "SIGKILL");
  });
});

describe("run_command with a child that left its group (issue 27 item 4)", () => {
  const escaping = (file: string) =>
    `setsid bash -c 'echo $$ > ${file}; exec sleep 40' & echo started`;

  async function escapedPid(file: string): Promise<number> {
    const pid = Number(await readFile(file, "utf8"));
    spawned.push(pid);
    return pid;
  }

  it("a timeout ends the call within seconds and names the process still holding its output", async () => {
    const tool = createRunCommandTool();
    const file = path.join(box.cwd, "escaped.pid");
    const started = Date.now();
    const error = await tool
      .execute(
        tool.argsSchema.parse({ command: `${escaping(file)}; sleep 30`, timeoutSeconds: 1 }),
        context(),
      )
      .then(
        () => undefined,
        (caught: Error) => caught,
      );
    expect(Date.now() - started).toBeLessThan(6_000);
    const pid = await escapedPid(file);
    expect(error?.message).toBe(
      `Command timed out after 1s and was killed. Still running and left alone (its output is no longer read): pid ${pid} (sleep 40).\nstarted\n`,
    );
    expect(isProcessAlive(pid)).toBe(true);
  });

  it("a cancel ends the call within seconds", async () => {
    const tool = createRunCommandTool();
    const file = path.join(box.cwd, "escaped.pid");
    const controller = new AbortController();
    const running = tool.execute(
      tool.argsSchema.parse({ command: `${escaping(file)}; sleep 30` }),
      {
        ...context(),
        signal: controller.signal,
      },
    );
    await until(() => existsSync(file), "the escaped child");
    const cancelled = Date.now();
    controller.abort();
    await expect(running).rejects.toThrow(/^Command cancelled; it was killed\. Still running/);
    expect(Date.now() - cancelled).toBeLessThan(5_000);
    await escapedPid(file);
  });
});

describe("initializeRun on resume", () => {
  it("ends a crashed run's still-running process group and says so in the synthetic output", async () => {
    const first = await initializeRun({
      store: box.store,
      input: "start it",
      cwd: box.cwd,
      policy: { approval: "auto" },
      model: "openai:gpt-4.1-mini",
    });
    const [call] = await first.writer.append([
      {
        type: "function_call",
        runId: first.runId,
        callId: "call_1",
        name: "run_command",
        arguments: '{"command":"sleep 60"}',
      },
    ]);
    const pid = detachedSleep();
    await first.writer.append([
      {
        type: PROCESS_START_EVENT,
        runId: first.runId,
        callId: "call_1",
        process: describeProcessGroup(pid),
        sourceEventSeqs: [call?.seq ?? 0],
      },
    ]);
    // The agent dies here: no output, no turn/end, the lock released by the crash.
    await first.writer.close();
    const resumed = await initializeRun({
      store: box.store,
      sessionId: first.sessionId,
      input: "again",
      cwd: box.cwd,
      policy: { approval: "auto" },
      model: "openai:gpt-4.1-mini",
    });
    await resumed.writer.close();
    await until(() => !isProcessAlive(pid), "the orphaned sleep to be ended");
    const repair = resumed.newEventsToPersist.find(
      (event) => event.type === "function_call_output",
    );
    expect(repair).toMatchObject({ callId: "call_1", synthetic: true, isError: true });
    expect(repair?.type === "function_call_output" && repair.output).toMatch(
      new RegExp(
        `^${INTERRUPTED_OUTPUT.replace(/[[\]().]/g, "\\$&")} Its process group was still running after the crash and has been ended \\(SIGTERM\\)\\.$`,
      ),
    );
  });
});
