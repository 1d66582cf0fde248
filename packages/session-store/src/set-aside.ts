/**
 * Setting files aside instead of deleting them: a torn tail moves into a sidecar beside its log
 * (`repair`), a deleted log and its sidecars move into the trash (`delete`). Nothing here takes a
 * lock or records a change: the store does both before calling.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { parseSegmentName } from "./cold-segment";
import { createFileExclusive, fsyncDirectory, makeDirectories } from "./fs-util";

/** `<log>.torn-<offset>-<time>`: beside the log, never matched by `list()`, never taken. */
export function sidecarPathOf(logPath: string, offset: number, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  let path = `${logPath}.torn-${offset}-${stamp}`;
  for (let index = 2; fs.existsSync(path); index += 1) {
    path = `${logPath}.torn-${offset}-${stamp}-${index}`;
  }
  return path;
}

/**
 * Moves the bytes `[offset, offset + bytes)` at the end of the log into `sidecarPath` (created
 * exclusively), then cuts the log there: the fragment is durable in its sidecar before the log
 * loses it.
 */
export function moveTornTail(
  logPath: string,
  tail: { offset: number; bytes: number },
  sidecarPath: string,
): void {
  const fd = fs.openSync(logPath, "r+");
  try {
    const fragment = Buffer.alloc(tail.bytes);
    fs.readSync(fd, fragment, 0, tail.bytes, tail.offset);
    createFileExclusive(sidecarPath, fragment);
    fs.ftruncateSync(fd, tail.offset);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Moves a session's log and its sidecars into `trashDir` (under free names: a session deleted
 * twice keeps both). The log goes last (a cold log's segments before its `.zst`), so a crash
 * midway leaves it in place, still listed, and `delete` again moves the rest.
 */
export function moveToTrash(sessionsDir: string, trashDir: string, sessionId: string): void {
  makeDirectories(trashDir);
  const prefix = `${sessionId}.jsonl`;
  const related = fs
    .readdirSync(sessionsDir)
    .filter(
      (name) =>
        name === prefix ||
        name === `${prefix}.zst` ||
        name.startsWith(`${prefix}.torn-`) ||
        parseSegmentName(name)?.sessionId === sessionId,
    );
  const rank = (name: string) => (name === prefix ? 2 : name === `${prefix}.zst` ? 1 : 0);
  related.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const name of related) {
    fs.renameSync(join(sessionsDir, name), freeTrashPath(trashDir, name));
  }
  fsyncDirectory(trashDir);
  fsyncDirectory(sessionsDir);
}

/** A free name for `name` in the trash. */
function freeTrashPath(trashDir: string, name: string): string {
  let path = join(trashDir, name);
  for (let index = 2; fs.existsSync(path); index += 1) {
    path = join(trashDir, `${name}.${index}`);
  }
  return path;
}
