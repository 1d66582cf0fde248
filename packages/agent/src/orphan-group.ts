import os from "node:os";
import type { ToolProcess } from "@tapedeck/session";
import { currentBootId, readProcStat } from "./proc-table";
import { type MarkedProcess, markedProcesses, signalGroup, signalProcess } from "./process-group";

/**
 * Ending what a crashed run left running. The log is data: a record is acted on only when this
 * machine confirms it (same host name and boot id, group id = leader pid), and only processes
 * that prove themselves the call's are signalled: members of the recorded group, started at or
 * after the recorded leader, whose environment holds the call's marker (its SHA-256 is in the
 * record; the value is not, so no log can put it into another process). The whole group is
 * signalled only while its leader is alive and proven; otherwise each proven member is.
 */

/** What {@link endOrphanGroup} found and did. */
export type OrphanOutcome =
  | { status: "ended"; signal: "SIGTERM" | "SIGKILL" }
  | { status: "gone" }
  | { status: "other-host"; host: string }
  | { status: "other-boot" }
  | { status: "unproven" }
  | { status: "not-ours" };

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

type Provable = ToolProcess & { bootId: string; startTicks: number };

/** The record's fields a proof needs, or `undefined` when it lacks one. */
function provable(record: ToolProcess): Provable | undefined {
  const { bootId, startTicks } = record;
  if (bootId === undefined || startTicks === undefined) return undefined;
  return { ...record, bootId, startTicks };
}

/**
 * Whether the recorded leader is alive and provably the recorded one: its pid is the group id, it
 * leads that group, and it started in exactly the recorded clock tick of this boot.
 */
function leaderProven(record: Provable): boolean {
  const stat = readProcStat(record.pid);
  return (
    stat !== undefined &&
    stat.state !== "Z" &&
    stat.pgrp === record.pgid &&
    stat.startTicks === record.startTicks
  );
}

/** Sends `signal` to the group when its leader is proven, else to each proven member. */
function signalMembers(record: Provable, members: MarkedProcess[], signal: NodeJS.Signals) {
  if (leaderProven(record)) {
    signalGroup(record.pgid, signal);
    return;
  }
  for (const member of members) {
    // Checked again just before the signal: the pid must still be the process that was proven.
    if (readProcStat(member.pid)?.startTicks === member.startTicks) {
      signalProcess(member.pid, signal);
    }
  }
}

/**
 * Ends the processes of a crashed call that are still running and provably its own (see the
 * file comment): SIGTERM first, SIGKILL after `graceMs` (default 1 s) to those still there.
 */
export async function endOrphanGroup(
  record: ToolProcess,
  options: { graceMs?: number } = {},
): Promise<OrphanOutcome> {
  if (record.host !== os.hostname()) return { status: "other-host", host: record.host };
  const proof = provable(record);
  const bootId = currentBootId();
  if (proof === undefined || bootId === undefined) return { status: "unproven" };
  if (proof.bootId !== bootId) return { status: "other-boot" };
  if (proof.pgid !== proof.pid) return { status: "not-ours" };
  // Without a marker (a record from before markers) only a live, proven leader can be acted on.
  const { marker } = proof;
  const members = () =>
    marker === undefined
      ? []
      : markedProcesses(marker, proof.startTicks).filter((member) => member.pgrp === proof.pgid);
  let found = members();
  if (found.length === 0 && !leaderProven(proof)) {
    const leader = readProcStat(proof.pid);
    const recycled = leader !== undefined && leader.startTicks !== proof.startTicks;
    return recycled ? { status: "not-ours" } : { status: "gone" };
  }
  signalMembers(proof, found, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? 1_000);
  while (Date.now() < deadline) {
    await sleep(25);
    found = members();
    if (found.length === 0 && !leaderProven(proof)) return { status: "ended", signal: "SIGTERM" };
  }
  signalMembers(proof, found, "SIGKILL");
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
    case "other-boot":
      return `${group} was started before this machine last restarted, so it is no longer running.`;
    case "unproven":
      return `${group} could not be proven to be this machine's (its record names no boot); it was left alone.`;
    case "not-ours":
      return `${group} was not found (its recorded pid or group id belongs to other processes); it was left alone.`;
  }
}
