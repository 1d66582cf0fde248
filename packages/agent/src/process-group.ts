import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import type { ToolProcess } from "@tapedeck/session";

/**
 * Process groups of tools: how a started group is described in the log, and how a later resume
 * ends a group a crashed run left behind, once it has made sure the group is still the one the
 * log names (same host, leader alive, same start time), so a recycled pid is never killed.
 */

/** Start times that differ by less than this are the same process (`btime` can drift by 1 s). */
const START_TOLERANCE_MS = 2_000;

/** Linux: the boot time in ms since the epoch, from `/proc/stat`. */
function bootTimeMs(): number | undefined {
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    return match === null ? undefined : Number(match[1]) * 1000;
  } catch {
    return undefined;
  }
}

/** Fields of `/proc/<pid>/stat` after the command name (field 3, the state, is index 0). */
function procStatFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started, as the operating system reports it (Linux `/proc`, else `ps`), or
 * `undefined` when it does not exist (or cannot be inspected).
 */
export function processStartTime(pid: number): Date | undefined {
  const fields = procStatFields(pid);
  if (fields !== undefined) {
    const boot = bootTimeMs();
    const ticks = Number(fields[19]);
    // Clock ticks are 1/100 s on every Linux Node supports (USER_HZ).
    if (boot !== undefined && Number.isFinite(ticks)) return new Date(boot + ticks * 10);
    return undefined;
  }
  if (process.platform === "linux") return undefined;
  try {
    const elapsed = Number(
      execFileSync("ps", ["-o", "etimes=", "-p", String(pid)], { encoding: "utf8" }).trim(),
    );
    return Number.isFinite(elapsed) ? new Date(Date.now() - elapsed * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** The log record of a process group whose leader is `pid` (started with `detached: true`). */
export function describeProcessGroup(pid: number): ToolProcess {
  return {
    pid,
    pgid: pid,
    host: os.hostname(),
    startedAt: (processStartTime(pid) ?? new Date()).toISOString(),
  };
}

/** Sends `signal` to every process of group `pgid`; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether group `pgid` still has a running member. On Linux zombies do not count (a killed
 * agent's children are reparented to an init that may never reap them); elsewhere any member does.
 */
export function groupRunning(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return signalGroup(pgid, 0);
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(Number(entry));
    // fields[0] is the state, fields[2] the process group.
    if (fields !== undefined && fields[2] === String(pgid) && fields[0] !== "Z") return true;
  }
  return false;
}

/** Whether `pid` exists, and whether we may signal it (EPERM: another user's process). */
function probe(pid: number): "alive" | "gone" | "foreign" {
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? "foreign" : "gone";
  }
}

/** What {@link endOrphanGroup} found and did. */
export type OrphanOutcome =
  | { status: "ended"; signal: "SIGTERM" | "SIGKILL" }
  | { status: "gone" }
  | { status: "other-host"; host: string }
  | { status: "not-ours" };

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Ends the process group a crashed run left running, if it is still that group: on this host,
 * its leader alive with the start time the log recorded. SIGTERM first, SIGKILL after `graceMs`.
 */
export async function endOrphanGroup(
  record: ToolProcess,
  options: { graceMs?: number } = {},
): Promise<OrphanOutcome> {
  if (record.host !== os.hostname()) return { status: "other-host", host: record.host };
  const state = probe(record.pid);
  if (state === "gone") return { status: "gone" };
  if (state === "foreign") return { status: "not-ours" };
  const started = processStartTime(record.pid);
  const recorded = Date.parse(record.startedAt);
  if (started === undefined || Math.abs(started.getTime() - recorded) > START_TOLERANCE_MS) {
    return { status: "not-ours" };
  }
  if (!groupRunning(record.pgid)) return { status: "gone" };
  signalGroup(record.pgid, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? 1_000);
  while (Date.now() < deadline) {
    if (!groupRunning(record.pgid)) return { status: "ended", signal: "SIGTERM" };
    await sleep(25);
  }
  signalGroup(record.pgid, "SIGKILL");
  return { status: "ended", signal: "SIGKILL" };
}

/** The sentence a synthetic output adds about a call's process group. */
export function orphanNote(outcome: OrphanOutcome): string {
  // The pid, host and start time are in the call's `x-process/start` event; the text stays the
  // same from run to run, so recordings of a repaired session replay.
  const group = "Its process group";
  switch (outcome.status) {
    case "ended":
      return `${group} was still running after the crash and has been ended (${outcome.signal}).`;
    case "gone":
      return `${group} was no longer running.`;
    case "other-host":
      return `${group} runs on host ${outcome.host}, not this one (${os.hostname()}); it was left alone.`;
    case "not-ours":
      return `${group} was no longer running (its pid now belongs to another process, left alone).`;
  }
}
