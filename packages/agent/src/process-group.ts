import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import os from "node:os";
import type { ToolProcess } from "@tapedeck/session";
import {
  bootTimeMs,
  commandOf,
  currentBootId,
  environmentValue,
  listPids,
  readProcStat,
} from "./proc-table";

/**
 * Process groups of tools: how a started group is described in the log, and which live processes
 * belong to a call. A call's processes carry a random marker in their environment
 * (`TAPEDECK_CALL_MARKER`); the log holds only its SHA-256, so no log can make another process
 * look like one of the call's (`orphan-group.ts` ends a crashed run's processes with it).
 */

/** The environment variable that holds a call's marker. */
export const CALL_MARKER_VARIABLE = "TAPEDECK_CALL_MARKER";

/** A call's marker: the value put in the command's environment, and the digest logged. */
export interface CallMarker {
  value: string;
  digest: string;
}

/** A fresh random marker for one call. */
export function newCallMarker(): CallMarker {
  const value = randomBytes(16).toString("hex");
  return { value, digest: markerDigest(value) };
}

/** SHA-256 (hex) of a marker value, as `x-process/start` records it. */
export function markerDigest(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * When process `pid` started, as the operating system reports it (Linux `/proc`, else `ps`), or
 * `undefined` when it does not exist (or cannot be inspected).
 */
export function processStartTime(pid: number): Date | undefined {
  const stat = readProcStat(pid);
  if (stat !== undefined) {
    const boot = bootTimeMs();
    // Clock ticks are 1/100 s on every Linux Node supports (USER_HZ).
    return boot === undefined ? undefined : new Date(boot + stat.startTicks * 10);
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

/**
 * The log record of a process group whose leader is `pid` (started with `detached: true`), with
 * the boot, start ticks and marker digest that let a later resume prove a process is this call's.
 */
export function describeProcessGroup(pid: number, marker?: CallMarker): ToolProcess {
  const stat = readProcStat(pid);
  const bootId = currentBootId();
  return {
    pid,
    pgid: pid,
    host: os.hostname(),
    startedAt: (processStartTime(pid) ?? new Date()).toISOString(),
    ...(bootId === undefined || stat === undefined ? {} : { bootId, startTicks: stat.startTicks }),
    ...(marker === undefined ? {} : { marker: marker.digest }),
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

/** Sends `signal` to process `pid`; false when it is gone (or not ours). */
export function signalProcess(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
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
  const pids = listPids();
  if (pids.length === 0) return signalGroup(pgid, 0);
  return pids.some((pid) => {
    const stat = readProcStat(pid);
    return stat !== undefined && stat.pgrp === pgid && stat.state !== "Z";
  });
}

/** A live process of a call. */
export interface MarkedProcess {
  pid: number;
  /** Process group id. */
  pgrp: number;
  /** Start time in clock ticks since boot. */
  startTicks: number;
  /** Its command line (cut at 200 characters). */
  command: string;
}

/**
 * The running (not zombie) processes whose environment holds the marker with SHA-256 `digest`
 * and that started at or after `sinceTicks` (Linux; empty elsewhere). Only the same user's
 * environments are readable, so only that user's processes are found.
 */
export function markedProcesses(digest: string, sinceTicks: number): MarkedProcess[] {
  const found: MarkedProcess[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const stat = readProcStat(pid);
    if (stat === undefined || stat.state === "Z" || stat.startTicks < sinceTicks) continue;
    const value = environmentValue(pid, CALL_MARKER_VARIABLE);
    if (value === undefined || markerDigest(value) !== digest) continue;
    found.push({ pid, pgrp: stat.pgrp, startTicks: stat.startTicks, command: commandOf(pid) });
  }
  return found;
}
