/**
 * Which source files changed since the last look, without reading them: the state of each source
 * folder (its files' size, mtime and inode, its folders' mtime) is kept in a small JSON file in
 * the home, and a look stats folders always, files that changed lately ("hot") always, and the
 * others ("cold") a few at a time. Tools append to their transcripts (the folder's mtime does not
 * move) and create new ones (it does), so a new session is seen at once, a growing one at once,
 * and a session grown after a long rest within a few looks.
 */
import {
  type Dirent,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { ImportSource } from "./types";

/** A file changed within this long is hot: statted at every look. */
export const HOT_MS = 24 * 60 * 60 * 1000;
/** Cold files statted per look (round robin), so a resumed old session is seen within a few. */
export const COLD_PER_LOOK = 64;

const fileStateSchema = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  ino: z.number(),
});
/** What a source file was when last seen: size, mtime and inode. */
export type FileState = z.infer<typeof fileStateSchema>;

const watchStateSchema = z.object({
  version: z.literal(1),
  /** Folder path → mtime (ms) when its entries were last listed. */
  dirs: z.record(z.string(), z.number()),
  /** Source file path → what it was when last imported. */
  files: z.record(z.string(), fileStateSchema),
  /** opencode: `<database>#<session id>` → what the session was when last imported. */
  units: z.optional(z.record(z.string(), z.string())),
});
/** What is remembered about one source's folders between looks. */
export type WatchState = z.infer<typeof watchStateSchema>;

/**
 * The state as written (version 2): per folder its mtime when last listed (`null`: never listed)
 * and its files as `[size, mtimeMs, ino]` by name. Half the bytes of version 1 (every path in full,
 * every field named) and a third of its `JSON.parse` time (2,000 sessions: 330 → 160 KB,
 * 1.2 → 0.4 ms), paid by each `tapedeck sessions …` process that looks first.
 */
const savedStateSchema = z.object({
  version: z.literal(2),
  // Each file's `[size, mtimeMs, ino]` is checked as it is read (`fileOf`): a zod tuple per file
  // cost more than the parse (2,000 files: ≈ 2 ms).
  folders: z.record(z.string(), z.tuple([z.number().nullable(), z.looseObject({})])),
  units: z.optional(z.record(z.string(), z.string())),
});
type SavedState = z.infer<typeof savedStateSchema>;

/** A saved `[size, mtimeMs, ino]`, or undefined when it is not one (the file counts as unseen). */
function fileOf(value: unknown): FileState | undefined {
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [size, mtimeMs, ino] = value as unknown[];
  if (typeof size !== "number" || typeof mtimeMs !== "number" || typeof ino !== "number") {
    return undefined;
  }
  return { size, mtimeMs, ino };
}

/** The state a saved file holds, in either version. */
function fromSaved(value: unknown): WatchState | undefined {
  if (isRecord(value) && value.version === 1) {
    const parsed = watchStateSchema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  }
  const parsed = savedStateSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const state = emptyWatchState();
  for (const [folder, [mtime, files]] of Object.entries(parsed.data.folders)) {
    if (mtime !== null) state.dirs[folder] = mtime;
    for (const name in files) {
      const file = fileOf(files[name]);
      if (file !== undefined) state.files[`${folder}/${name}`] = file;
    }
  }
  if (parsed.data.units !== undefined) state.units = parsed.data.units;
  return state;
}

function toSaved(state: WatchState): SavedState {
  const folders: SavedState["folders"] = {};
  for (const [folder, mtime] of Object.entries(state.dirs)) folders[folder] = [mtime, {}];
  for (const [path, file] of Object.entries(state.files)) {
    const folder = dirname(path);
    folders[folder] ??= [null, {}];
    folders[folder][1][basename(path)] = [file.size, file.mtimeMs, file.ino];
  }
  return { version: 2, folders, ...(state.units === undefined ? {} : { units: state.units }) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A state with nothing seen yet. */
export function emptyWatchState(): WatchState {
  return { version: 1, dirs: {}, files: {} };
}

/** The state file as last read or written by this process, and what the file was then. */
const loaded = new Map<string, { state: WatchState; file: FileState }>();
/** What the state file was when each state object was read from it. */
const readAs = new WeakMap<WatchState, FileState>();

/**
 * Reads a saved state; a missing or damaged file is a fresh start (everything is looked at). In
 * a process that looks again and again (`--watch`, the viewer) the state parsed last time is
 * used while the file is the one it was read from or written as (size, mtime and inode: another
 * process that saved it since is seen), so a look with nothing changed reads and parses nothing.
 * The caller owns the returned object until {@link saveWatchState} or {@link forgetWatchState}.
 */
export function loadWatchState(path: string): WatchState {
  const file = fileStateOf(path);
  const cached = loaded.get(path);
  loaded.delete(path);
  if (file === undefined) return emptyWatchState();
  if (cached !== undefined && sameFileState(cached.file, file)) {
    readAs.set(cached.state, file);
    return cached.state;
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return emptyWatchState();
  }
  try {
    const state = fromSaved(JSON.parse(text));
    if (state === undefined) return emptyWatchState();
    // Read after the stat: a file replaced in between is read again at the next look.
    readAs.set(state, file);
    return state;
  } catch {
    return emptyWatchState();
  }
}

/**
 * Hands back a state {@link loadWatchState} read and nothing changed (a look that found nothing
 * to record), so the next load in this process reuses it while the file stays as it was read.
 */
export function keepWatchState(path: string, state: WatchState): void {
  const file = readAs.get(state);
  if (file !== undefined) loaded.set(path, { state, file });
}

/** Writes the state through a temp file and a rename (a crash leaves the old one or the new). */
export function saveWatchState(path: string, state: WatchState): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(toSaved(state)));
  renameSync(temp, path);
  const file = fileStateOf(path);
  if (file !== undefined) loaded.set(path, { state, file });
}

function fileStateOf(path: string): FileState | undefined {
  try {
    const stats = statSync(path);
    return { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
  } catch {
    return undefined;
  }
}

/** True when two looks at a file saw the same size, mtime and inode. */
export function sameFileState(a: FileState, b: FileState): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/** What one look found. */
export interface LookResult {
  /** Source files to import (new or changed), each a unit's main file. */
  changed: string[];
  /** The files now known with what they were when seen (recorded once imported). */
  seen: Map<string, FileState>;
  /** Files statted in this look (for tests and measurements). */
  statted: number;
  /** True when the state changed (a folder listed again): worth saving even with nothing new. */
  dirty: boolean;
}

/**
 * Looks at `roots` (a source's folders) against `state`: lists a folder again only when its
 * mtime moved, stats hot files and {@link COLD_PER_LOOK} cold ones (a slice that moves with the
 * clock). `now` is the clock (tests).
 * Claude Code's `<id>/subagents/agent-*.jsonl` count as their parent transcript `<id>.jsonl`.
 */
export function lookForChanges(
  source: ImportSource,
  roots: readonly string[],
  state: WatchState,
  now = Date.now(),
): LookResult {
  const changed = new Set<string>();
  const seen = new Map<string, FileState>();
  let statted = 0;
  let dirty = false;
  const statFile = (path: string): void => {
    statted += 1;
    let current: FileState;
    try {
      const stats = statSync(path);
      current = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
    } catch {
      return;
    }
    const known = state.files[path];
    if (
      known === undefined ||
      known.size !== current.size ||
      known.mtimeMs !== current.mtimeMs ||
      known.ino !== current.ino
    ) {
      changed.add(unitPathOf(source, path));
      seen.set(path, current);
    }
  };
  const listed = new Set<string>();
  // Folders that held folders when last listed (walked whatever their mtime): one pass, not one
  // scan of every known folder per folder.
  const parents = new Set<string>();
  for (const known in state.dirs) parents.add(dirname(known));
  const walk = (dir: string, depth: number): void => {
    if (depth > 8) return;
    let mtime: number;
    try {
      mtime = statSync(dir).mtimeMs;
    } catch {
      return;
    }
    if (state.dirs[dir] === mtime && depth > 0 && !parents.has(dir)) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (state.dirs[dir] !== mtime) dirty = true;
    state.dirs[dir] = mtime;
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, depth + 1);
      else if (isSourceFile(source, entry.name) && state.files[path] === undefined) {
        listed.add(path);
        statFile(path);
      }
    }
  };
  for (const root of roots) walk(root, 0);
  // Known files: the hot ones every look, the cold ones a slice at a time.
  const known = Object.keys(state.files);
  const cold: string[] = [];
  for (const path of known) {
    if (listed.has(path)) continue;
    if (now - state.files[path]!.mtimeMs < HOT_MS) statFile(path);
    else cold.push(path);
  }
  // The slice moves with the clock (one step a second), so no cursor has to be written back.
  const count = Math.min(COLD_PER_LOOK, cold.length);
  const start = cold.length === 0 ? 0 : (Math.floor(now / 1000) * COLD_PER_LOOK) % cold.length;
  for (let index = 0; index < count; index += 1) statFile(cold[(start + index) % cold.length]!);
  return { changed: [...changed], seen, statted, dirty };
}

/** Records what a look saw, once the files it found changed are imported. */
export function recordSeen(state: WatchState, seen: ReadonlyMap<string, FileState>): void {
  for (const [path, file] of seen) state.files[path] = file;
}

function isSourceFile(source: ImportSource, name: string): boolean {
  if (source === "opencode") return name === "opencode.db" || name.endsWith(".json");
  if (source === "gemini") {
    return (
      (name.startsWith("session-") || name.startsWith("checkpoint-")) && name.endsWith(".json")
    );
  }
  return name.endsWith(".jsonl") || (source === "codex" && name.endsWith(".jsonl.zst"));
}

/** The file a unit is read from: a Claude Code sub-agent's is its parent transcript. */
function unitPathOf(source: ImportSource, path: string): string {
  if (source !== "claude-code" || basename(dirname(path)) !== "subagents") return path;
  return `${dirname(dirname(path))}.jsonl`;
}
