/**
 * Which sessions of opencode's pre-1.2 `storage/` folder changed since the last look, without
 * reading a file of it. The folder holds a file per session (`session/<project>/<ses>.json`), per
 * message (`message/<ses>/<msg>.json`) and per part (`part/<msg>/<prt>.json`); opencode creates a
 * file for each new message and part (its folder's mtime moves) and rewrites a file in place as it
 * streams into it (the file's size and mtime move, its folder's do not). So the folders and file
 * names alone lead from a session to its messages and parts, and a session is summed up by the
 * `stat`s of its session file, its message folder and its last messages with their parts: a look
 * takes those of the sessions written in the last {@link LIVE_MS}, and of the others (all hot
 * ones, a slice of the cold ones) only the first two.
 */
import { createHash } from "node:crypto";
import { readdirSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { COLD_PER_LOOK, HOT_MS, type WatchState } from "./source-watch";
import { childOf } from "./sources/confined-read";

/**
 * Messages of a session, counted from its last, whose files and parts a look stats. opencode
 * writes into the message it is answering with and, when a prompt was queued meanwhile, the one
 * before; every older message is finished (a later change there is seen when the session changes
 * otherwise, and then read whole).
 */
export const STORAGE_TAIL_MESSAGES = 2;

/**
 * A session written within this long is live: its last messages' files and parts are statted at
 * every look (a part streamed into is rewritten in place). opencode writes a running session
 * every few seconds (each streamed piece, each tool's start and end) and, after a tool that ran
 * longer, a new message at once (its folder's mtime moves), so a session quiet for this long is
 * watched by its session file and message folder alone.
 */
export const LIVE_MS = 15 * 60 * 1000;

/** What one look at a storage folder found. */
export interface StorageLook {
  /** Session file → what its session is now, for each session new or changed. */
  changed: Map<string, string>;
  /** `stat`s and listings done. */
  statted: number;
  /** True when the state changed without an import (a folder listed, a session gone). */
  dirty: boolean;
}

/**
 * Looks at `storage` (an opencode `storage/` folder) against `state`: lists `session/` and a
 * project folder only when its mtime moved (a new session), sums up every live session (written
 * in the last {@link LIVE_MS}), and checks every hot one (the last {@link HOT_MS}) and
 * {@link COLD_PER_LOOK} cold ones (a slice that moves with the clock) by their session file and
 * message folder alone, summing up those whose outline moved. `state.units` holds per session file
 * what its session was when last imported; the caller records `changed` once imported.
 */
export function lookAtStorage(storage: string, state: WatchState, now: number): StorageLook {
  const look: StorageLook = { changed: new Map(), statted: 0, dirty: false };
  const units = state.units ?? {};
  const sessionDir = join(storage, "session");
  const fresh = new Set<string>();
  for (const project of projectFolders(sessionDir, state, look)) {
    for (const file of newSessionFiles(project, state, look)) {
      if (units[file] === undefined) fresh.add(file);
    }
  }
  const cold: string[] = [];
  const prefix = `${sessionDir}/`;
  for (const file in units) {
    if (!file.startsWith(prefix) || fresh.has(file)) continue;
    const known = units[file]!;
    const age = now - Number(known.slice(0, known.indexOf("|")));
    if (age < LIVE_MS) compare(file, known);
    else if (age < HOT_MS) compareOutline(file, known);
    else cold.push(file);
  }
  for (const file of fresh) compare(file, undefined);
  // The slice moves with the clock (one step a second), as for transcripts (`source-watch.ts`).
  const count = Math.min(COLD_PER_LOOK, cold.length);
  const start = cold.length === 0 ? 0 : (Math.floor(now / 1000) * COLD_PER_LOOK) % cold.length;
  for (let index = 0; index < count; index += 1) {
    const file = cold[(start + index) % cold.length]!;
    compareOutline(file, units[file]!);
  }
  return look;

  function compareOutline(file: string, known: string): void {
    const outline = sessionOutline(storage, file, look);
    if (outline === undefined) forget(file);
    else if (outline !== outlineOf(known)) compare(file, known);
  }

  function compare(file: string, known: string | undefined): void {
    const summary = summarizeSession(storage, file, look);
    if (summary === undefined) forget(file);
    else if (summary !== known) look.changed.set(file, summary);
  }
  function forget(file: string): void {
    if (units[file] === undefined) return;
    delete units[file];
    look.dirty = true;
  }
}

/**
 * The project folders under `session/`: listed again when the folder's mtime moved (a project's
 * first session), else those the state knows. Records their mtimes in `state.dirs` once listed.
 */
function projectFolders(sessionDir: string, state: WatchState, look: StorageLook): string[] {
  const mtime = mtimeOf(sessionDir, look);
  if (mtime === undefined) return [];
  if (state.dirs[sessionDir] !== mtime) {
    const names = list(sessionDir, look);
    if (names === undefined) return [];
    state.dirs[sessionDir] = mtime;
    look.dirty = true;
    return names.map((name) => join(sessionDir, name));
  }
  const projects: string[] = [];
  for (const folder in state.dirs) if (dirname(folder) === sessionDir) projects.push(folder);
  return projects;
}

/** The session files of `project` when its mtime moved since it was last listed, else none. */
function newSessionFiles(project: string, state: WatchState, look: StorageLook): string[] {
  const mtime = mtimeOf(project, look);
  if (mtime === undefined) {
    if (state.dirs[project] !== undefined) {
      delete state.dirs[project];
      look.dirty = true;
    }
    return [];
  }
  if (state.dirs[project] === mtime) return [];
  const names = list(project, look);
  if (names === undefined) return [];
  state.dirs[project] = mtime;
  look.dirty = true;
  return names.filter((name) => name.endsWith(".json")).map((name) => join(project, name));
}

/**
 * A session summed up: `<latest mtime>|<outline>|<tail>`, where the outline is the session file's
 * size, mtime and inode and its message folder's mtime (what a cold look compares), and the tail
 * a digest of the number of messages and the names, sizes, mtimes and inodes of the last
 * {@link STORAGE_TAIL_MESSAGES} messages' files, part folders and parts. `undefined` when the
 * session file is gone.
 */
export function summarizeSession(
  storage: string,
  sessionFile: string,
  look: StorageLook,
): string | undefined {
  const file = statOf(sessionFile, look);
  if (file === undefined) return undefined;
  let latest = file.mtimeMs;
  const messageDir = childOf(join(storage, "message"), basename(sessionFile, ".json"));
  const folder = messageDir === undefined ? undefined : statOf(messageDir, look);
  if (folder !== undefined) latest = Math.max(latest, folder.mtimeMs);
  const names = folder === undefined ? [] : jsonNames(messageDir!, look);
  const tail = createHash("sha256").update(String(names.length));
  for (const name of names.slice(-STORAGE_TAIL_MESSAGES)) {
    const message = statOf(join(messageDir!, name), look);
    tail.update(`\n${name}:${fileText(message)}`);
    if (message !== undefined) latest = Math.max(latest, message.mtimeMs);
    const partDir = childOf(join(storage, "part"), basename(name, ".json"));
    if (partDir === undefined) continue;
    for (const part of jsonNames(partDir, look)) {
      const stats = statOf(join(partDir, part), look);
      tail.update(`\n ${part}:${fileText(stats)}`);
      if (stats !== undefined) latest = Math.max(latest, stats.mtimeMs);
    }
  }
  return `${Math.floor(latest)}|${outlineText(file, folder)}|${tail.digest("base64url").slice(0, 22)}`;
}

/** The outline of a session now (session file and message folder), as {@link outlineOf} reads it. */
function sessionOutline(
  storage: string,
  sessionFile: string,
  look: StorageLook,
): string | undefined {
  const file = statOf(sessionFile, look);
  if (file === undefined) return undefined;
  const messageDir = childOf(join(storage, "message"), basename(sessionFile, ".json"));
  return outlineText(file, messageDir === undefined ? undefined : statOf(messageDir, look));
}

/** The outline part of a summary. */
function outlineOf(summary: string): string {
  const first = summary.indexOf("|");
  return summary.slice(first + 1, summary.indexOf("|", first + 1));
}

function outlineText(file: Stats, folder: Stats | undefined): string {
  return `${fileText(file)}:${folder === undefined ? "-" : folder.mtimeMs}`;
}

function fileText(stats: Stats | undefined): string {
  return stats === undefined ? "-" : `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}

/** `stat` (links followed: nothing is read here; the import reads confined to the folder). */
function statOf(path: string, look: StorageLook): Stats | undefined {
  look.statted += 1;
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function mtimeOf(path: string, look: StorageLook): number | undefined {
  const stats = statOf(path, look);
  return stats?.isDirectory() === true ? stats.mtimeMs : undefined;
}

function list(directory: string, look: StorageLook): string[] | undefined {
  look.statted += 1;
  try {
    return readdirSync(directory).sort();
  } catch {
    return undefined;
  }
}

/** The `.json` names of a folder, sorted (ids are time-ordered: creation order); none if missing. */
function jsonNames(directory: string, look: StorageLook): string[] {
  return (list(directory, look) ?? []).filter((name) => name.endsWith(".json"));
}
