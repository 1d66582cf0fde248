import { readFileSync } from "node:fs";
import path from "node:path";
import { isProcessAlive } from "@tapedeck/agent/testing";
import { homeLogs } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

const escaped: string[] = [];
afterEach(() => {
  for (const file of escaped.splice(0)) {
    const pid = readPid(file);
    if (pid !== undefined && isProcessAlive(pid)) process.kill(pid, "SIGKILL");
  }
});

/** A command whose child leaves the process group (`setsid`) and keeps the pipes open 40 s. */
const ESCAPE = `setsid bash -c 'echo $$ > escaped.pid; exec sleep 40' & echo started`;

async function toolOutput(home: string): Promise<string> {
  const logs = homeLogs(home);
  for (const sessionId of await logs.sessionIds())
    for (const event of await logs.lines(sessionId))
      if (event.type === "function_call_output") return String(event.output ?? "");
  return "";
}

describe("run_command with a child that escaped its process group (issue 27, item 4)", () => {
  it("a timeout ends the call and the turn within seconds and names what is still running", async () => {
    const attack = await hostileModel([
      {
        toolCalls: [
          { name: "run_command", arguments: { command: `${ESCAPE}; sleep 30`, timeoutSeconds: 2 } },
        ],
      },
      { text: "done" },
    ]);
    const pidFile = path.join(attack.workspace.cwd, "escaped.pid");
    escaped.push(pidFile);
    const started = Date.now();
    const result = await attack.cli(["run", "--approve", "start it"], { timeoutMs: 25_000 });
    const elapsed = Date.now() - started;
    expect({ code: result.code, stdout: result.stdout }, result.stderr).toEqual({
      code: 0,
      stdout: "done\n",
    });
    expect(elapsed).toBeLessThan(12_000);
    const pid = readPid(pidFile);
    expect(pid).toBeDefined();
    // Left alone, and named: it is not in the group the timeout killed.
    expect(isProcessAlive(pid ?? 0)).toBe(true);
    const output = await toolOutput(attack.workspace.home);
    expect(output).toMatch(
      /^Error: Command timed out after 2s and was killed\. Still running and left alone/,
    );
    expect(output).toContain(`pid ${pid} (sleep 40)`);
    // And recorded as data: which processes of the call were left running.
    const logs = homeLogs(attack.workspace.home);
    const [sessionId = ""] = await logs.sessionIds();
    const events = await logs.lines(sessionId);
    const left = events.find((event) => event.type === "x-process/left-running");
    expect(left).toMatchObject({ processes: [{ pid, command: "sleep 40" }] });
    const outputAt = events.findIndex((event) => event.type === "function_call_output");
    expect(events.indexOf(left ?? {})).toBeLessThan(outputAt);
  });

  it("Ctrl-C ends the run (exit 130) within seconds instead of showing Cancelling… until the child exits", async () => {
    const attack = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command: `${ESCAPE}; sleep 30` } }] },
      { text: "never reached" },
    ]);
    const pidFile = path.join(attack.workspace.cwd, "escaped.pid");
    escaped.push(pidFile);
    let interruptedAt = 0;
    const result = await attack.cli(["run", "--approve", "start it"], {
      timeoutMs: 25_000,
      onStderr: (stderr, child) => {
        if (interruptedAt === 0 && stderr.includes("● Run")) {
          interruptedAt = -1;
          const poll = setInterval(() => {
            if (readPid(pidFile) === undefined) return;
            clearInterval(poll);
            interruptedAt = Date.now();
            child.kill("SIGINT");
          }, 50);
        }
      },
    });
    const elapsed = Date.now() - interruptedAt;
    expect(result.code, result.stderr).toBe(130);
    expect(interruptedAt).toBeGreaterThan(0);
    expect(elapsed).toBeLessThan(8_000);
    const output = await toolOutput(attack.workspace.home);
    expect(output).toMatch(
      /^Error: Command cancelled; it was killed\. Still running and left alone/,
    );
    expect(output).toContain(`pid ${readPid(pidFile)} (sleep 40)`);
  });

  it("a command that exits while its escaped child holds the pipes ends without waiting for it", async () => {
    const attack = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command: ESCAPE } }] },
      { text: "done" },
    ]);
    const pidFile = path.join(attack.workspace.cwd, "escaped.pid");
    escaped.push(pidFile);
    const started = Date.now();
    const result = await attack.cli(["run", "--approve", "start it"], { timeoutMs: 25_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(12_000);
    const output = await toolOutput(attack.workspace.home);
    expect(output).toMatch(
      /^exit code 0 Still running and left alone \(its output is no longer read\): pid \d+ \(sleep 40\)\.\nstarted\n$/,
    );
  });
});

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
