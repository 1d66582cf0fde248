/**
 * The kept tails (`<home>/tails/`, `kept-tail.ts`) as a kind of `tapedeck storage`: counted, and
 * housekept by `storage compact`. Two things can stay there that no writer will ever use: the temp
 * file of a process killed between writing a tail and renaming it into place (named after its
 * process, `tempPathIn`), and the tail of a session whose log is gone (removed by hand, or by a
 * program older than `delete` forgetting tails). Neither is ever read as a tail (a temp has no
 * tail's name; a tail is checked against its log), so removing them is reclaim, not repair.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { hasErrorCode, parseTempName, processAlive, removeFile } from "./fs-util";
import { STALE_TEMP_MS } from "./leftover-temps";
import { sessionIdOfFileName } from "./log-names";
import type { StoreStorageKind } from "./storage-kinds";

/** The row's label in `tapedeck storage`. */
export const KEPT_TAILS_KIND = "kept tails";

interface TailsEntry {
  name: string;
  path: string;
  bytes: number;
  mtimeMs: number;
}

function entriesOf(tailsDir: string): TailsEntry[] {
  let names: string[];
  try {
    names = fs.readdirSync(tailsDir);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return [];
    throw error;
  }
  const entries: TailsEntry[] = [];
  for (const name of names) {
    const path = join(tailsDir, name);
    const stat = fs.lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isFile()) entries.push({ name, path, bytes: stat.size, mtimeMs: stat.mtimeMs });
  }
  return entries;
}

function sessionIdOf(label: string): string | undefined {
  return sessionIdOfFileName(`${label}.jsonl`);
}

/**
 * Whether `entry` is one the store left and no writer will use: a tail temp of a dead process
 * (or of a live pid, an hour old: another machine's, or a reused pid), or the tail of a session
 * neither in `live` nor on disk (`hasLog`, asked last: a session created since `live` was listed).
 */
function isLeftover(
  entry: TailsEntry,
  live: ReadonlySet<string>,
  hasLog: (sessionId: string) => boolean,
  now: number,
): boolean {
  const temp = parseTempName(entry.name);
  if (temp !== undefined) {
    if (sessionIdOf(temp.label) === undefined) return false;
    return !processAlive(temp.pid) || now - entry.mtimeMs >= STALE_TEMP_MS;
  }
  if (!entry.name.endsWith(".json")) return false;
  const sessionId = sessionIdOf(entry.name.slice(0, -".json".length));
  return sessionId !== undefined && !live.has(sessionId) && !hasLog(sessionId);
}

/**
 * The kept tails' kind: `usage` counts every file in `tailsDir`; `reclaim` removes the leftovers
 * (see the file's comment); any other file there is someone else's and stays.
 */
export function keptTailsKind(
  tailsDir: string,
  hasLog: (sessionId: string) => boolean,
): StoreStorageKind {
  return {
    kind: KEPT_TAILS_KIND,
    usage: async () => {
      const entries = entriesOf(tailsDir);
      return {
        bytes: entries.reduce((sum, entry) => sum + entry.bytes, 0),
        files: entries.length,
      };
    },
    reclaim: async (live, options) => {
      const now = Date.now();
      let bytes = 0;
      for (const entry of entriesOf(tailsDir)) {
        if (!isLeftover(entry, live, hasLog, now)) continue;
        bytes += entry.bytes;
        if (!options.dryRun) {
          try {
            removeFile(entry.path);
          } catch {
            // Left for the next compact; never read as a tail meanwhile.
          }
        }
      }
      return { bytes };
    },
  };
}
