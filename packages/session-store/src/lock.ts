import * as fs from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { type LockOwner, SessionBusyError } from "@tapedeck/session";
import { z } from "zod";
import {
  createFileExclusive,
  faultWriting,
  hasErrorCode,
  makeDirectories,
  processAlive,
  randomHex,
} from "./fs-util";

/** Lock files are written by other processes (maybe another version): lenient, but typed. */
const lockOwnerSchema = z.looseObject({
  pid: z.number().int().positive(),
  host: z.string(),
  startedAt: z.string(),
  token: z.string().optional(),
});

/**
 * How long an unreadable lock file (or reclaim marker) must sit untouched before it counts as
 * abandoned. Lock files are never visible half-written (see `createFileExclusive`), so an
 * unreadable one was damaged by something else.
 */
const abandonedAfterMs = 10_000;

/** A held session lock. */
export interface HeldLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** Random per acquisition, so a release never removes a later lock of the same process. */
  readonly token: string;
}

/** The owner recorded in a lock file; `undefined` when there is no file, `null` when unreadable. */
export function readLockFile(path: string): LockOwner | undefined | null {
  const record = readLockRecord(path);
  return record ? ownerOf(record) : record;
}

function ownerOf(record: LockOwner): LockOwner {
  return { pid: record.pid, host: record.host, startedAt: record.startedAt };
}

function readLockRecord(path: string): z.infer<typeof lockOwnerSchema> | undefined | null {
  let text: string;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const result = lockOwnerSchema.safeParse(value);
  return result.success ? result.data : null;
}

/** Tokens of the locks this process holds now. */
const heldTokens = new Set<string>();

/**
 * A lock is stale when its process is gone: same host and the pid is not alive — or the pid is
 * this very process but the lock is not one it holds (a previous process that had the same pid,
 * as happens when a container restarts).
 */
export function isStale(owner: LockOwner & { token?: string | undefined }): boolean {
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return owner.token === undefined || !heldTokens.has(owner.token);
  return !processAlive(owner.pid);
}

function sameOwner(a: LockOwner, b: LockOwner): boolean {
  return a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt;
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - fs.statSync(path).mtimeMs > ms;
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return false;
    throw error;
  }
}

function unlinkIfPresent(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (error) {
    if (!hasErrorCode(error, "ENOENT")) throw error;
  }
}

/**
 * Removes the lock at `path` if it still holds exactly `judged` (or is still unreadable when
 * `judged` is `null`). Reclaimers serialise on a `<lock>.reclaim` marker so that two processes
 * that both judged the same lock stale cannot remove a fresh lock the first one took in between:
 * the second re-reads the lock under the marker and sees the new, live owner.
 */
function reclaim(path: string, judged: LockOwner | null): void {
  const marker = `${path}.reclaim`;
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  try {
    createFileExclusive(marker, Buffer.from(JSON.stringify(me)), false);
  } catch (error) {
    if (!hasErrorCode(error, "EEXIST")) throw error;
    // Another process is reclaiming. Its marker lives for microseconds; one left by a process
    // that died in that window is removed once its owner is gone (or it is old and unreadable).
    const holder = readLockFile(marker);
    if ((holder && isStale(holder)) || (holder === null && isOlderThan(marker, abandonedAfterMs))) {
      unlinkIfPresent(marker);
    }
    return;
  }
  try {
    const current = readLockFile(path);
    if (current === undefined) return;
    if (judged === null ? current === null : current !== null && sameOwner(current, judged)) {
      unlinkIfPresent(path);
    }
  } finally {
    unlinkIfPresent(marker);
  }
}

/**
 * Takes the lock at `path` for `sessionId`: a file holding `{pid, host, startedAt}` created
 * exclusively. A stale lock (dead pid on this host) is reclaimed; a live one — including one held
 * by this very process — throws `SessionBusyError` naming its owner.
 */
export function acquireLock(path: string, sessionId: string, home: string): HeldLock {
  makeDirectories(dirname(path));
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
  };
  const token = randomHex(8);
  const data = Buffer.from(`${JSON.stringify({ ...owner, token })}\n`);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    try {
      createFileExclusive(path, data, false);
      heldTokens.add(token);
      return { path, owner, token };
    } catch (error) {
      if (!hasErrorCode(error, "EEXIST")) throw faultWriting(error, path, home);
    }
    const current = readLockRecord(path);
    if (current === undefined) continue; // released meanwhile: try again
    if (current === null) {
      if (!isOlderThan(path, abandonedAfterMs)) throw new SessionBusyError(sessionId);
      reclaim(path, null);
      continue;
    }
    if (!isStale(current)) throw new SessionBusyError(sessionId, ownerOf(current));
    reclaim(path, ownerOf(current));
  }
  throw new SessionBusyError(sessionId, readLockFile(path) ?? undefined);
}

/** Releases a lock this process holds; leaves the file alone if someone else owns it now. */
export function releaseLock(lock: HeldLock): void {
  heldTokens.delete(lock.token);
  const current = readLockRecord(lock.path);
  if (current && current.token === lock.token) unlinkIfPresent(lock.path);
}

/** The live owner of the lock at `path`, if any (stale and unreadable locks give `undefined`). */
export function liveLockOwner(path: string): LockOwner | undefined {
  const current = readLockRecord(path);
  if (!current || isStale(current)) return undefined;
  return ownerOf(current);
}
