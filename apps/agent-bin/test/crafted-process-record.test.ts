/**
 * A log never picks what a resume signals (issue #27, item 5): an imported export's
 * `x-process/start` that names a live process with its true host, boot and start time, and
 * someone else's process group.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { processStartTime } from "@tapedeck/agent";
import { isProcessAlive } from "@tapedeck/agent/testing";
import { hostileFixtureText } from "@tapedeck/fixtures";
import { homeLogs } from "@tapedeck/test-harness";
import { describe, expect, it, onTestFinished } from "vitest";
import { hostileModel } from "./hostile";

/** A `sleep 600` leading its own process group, killed when the test ends. */
function groupLeader(): number {
  const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
  child.unref();
  const pid = child.pid ?? 0;
  onTestFinished(() => {
    if (isProcessAlive(pid)) process.kill(-pid, "SIGKILL");
  });
  return pid;
}

describe("a crafted x-process/start in an imported session", () => {
  it("run -c signals nothing: not the group it names, not the process it names", async () => {
    const model = await hostileModel([{ text: "resumed" }]);
    const checked = groupLeader();
    const victim = groupLeader();
    // Everything true of this machine, except that the group is not the checked process's.
    const stat = readFileSync(`/proc/${checked}/stat`, "utf8");
    const ticks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
    const file = path.join(model.workspace.root, "export.jsonl");
    await writeFile(
      file,
      hostileFixtureText("tapedeck-export-process", {
        __CWD__: model.workspace.cwd,
        __MODEL__: "openai-chat:scripted",
        __PID__: String(checked),
        __PGID__: String(victim),
        __HOST__: os.hostname(),
        __STARTED__: processStartTime(checked)?.toISOString() ?? "",
        __BOOT__: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
        __TICKS__: ticks,
      }),
    );
    const imported = await model.cli(["import", "tapedeck", file]);
    expect(imported.code, imported.stderr).toBe(0);

    const result = await model.cli(["run", "-c", "again"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("resumed");
    // The resume writes its repair only once it has decided (and, had it signalled, once its
    // SIGTERM and the SIGKILL a second later were sent): "left alone" means no signal went out,
    // and the process it exited after cannot send one later. No wait is needed.
    const logs = homeLogs(model.workspace.home);
    const [sessionId = ""] = await logs.sessionIds();
    const repair = (await logs.lines(sessionId)).find(
      (event) => event.type === "function_call_output" && event.synthetic === true,
    );
    expect(repair?.output).toMatch(/Its process group .*; it was left alone\.$/);
    expect(isProcessAlive(victim)).toBe(true);
    expect(isProcessAlive(checked)).toBe(true);
  });
});
