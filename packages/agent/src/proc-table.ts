import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Linux's process table (`/proc`), read without trusting anything else: the boot a process runs
 * in, its group, its start time in clock ticks since boot and the marker in its environment. Every
 * function returns `undefined` (or nothing) where `/proc` is missing or unreadable, so callers
 * that must prove something about a process fail closed.
 */

/** What `/proc/<pid>/stat` says about a process. */
export interface ProcStat {
  /** One-letter state (`R`, `S`, `Z`…). */
  state: string;
  /** Process group id. */
  pgrp: number;
  /** Start time in clock ticks since boot. */
  startTicks: number;
}

/** This boot's id (`/proc/sys/kernel/random/boot_id`), or `undefined` off Linux. */
export function currentBootId(): string | undefined {
  try {
    const id = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return id === "" ? undefined : id;
  } catch {
    return undefined;
  }
}

/** The boot time in ms since the epoch (`btime` of `/proc/stat`). */
export function bootTimeMs(): number | undefined {
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    return match === null ? undefined : Number(match[1]) * 1000;
  } catch {
    return undefined;
  }
}

/** State, group and start ticks of `pid`, or `undefined` when it does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: split after its last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const pgrp = Number(fields[2]);
  const startTicks = Number(fields[19]);
  if (fields[0] === undefined || !Number.isInteger(pgrp) || !Number.isInteger(startTicks)) {
    return undefined;
  }
  return { state: fields[0], pgrp, startTicks };
}

/** Every pid in `/proc` (empty off Linux). */
export function listPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The value of `name` in the environment `pid` was started with (`/proc/<pid>/environ`, readable
 * only for the same user's processes), or `undefined`.
 */
export function environmentValue(pid: number, name: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return undefined;
  }
  const prefix = `${name}=`;
  for (const entry of text.split("\0")) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  }
  return undefined;
}

/** A short description of what `pid` runs (its command line, else its executable's name). */
export function commandOf(pid: number): string {
  try {
    const line = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    if (line !== "") return line.length > 200 ? `${line.slice(0, 200)}…` : line;
  } catch {
    // fall through to the executable
  }
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return "?";
  }
}
