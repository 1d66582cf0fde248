/**
 * Where each tool keeps its sessions, and which files under a path belong to a source.
 */
import { type BigIntStats, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileStats } from "@tapedeck/session-store";
import { NotAFileError } from "./errors";
import { convertKeeping, type KeptConversion, keepsState } from "./kept-conversion";
import { parseJsonDocument, readSourceBytes, splitLines } from "./lines";
import { convertClaudeCode } from "./sources/claude-code";
import { convertCodex } from "./sources/codex";
import type { SourceFile } from "./sources/common";
import { convertGemini } from "./sources/gemini";
import { convertGeminiCheckpoint, isGeminiCheckpoint } from "./sources/gemini-checkpoint";
import { convertOpencode } from "./sources/opencode";
import {
  opencodeDatabase,
  opencodeDatabaseSessions,
  readOpencodeDatabaseSession,
} from "./sources/opencode-sqlite";
import {
  opencodeStorageDir,
  opencodeStorageSessions,
  readOpencodeStorageSession,
} from "./sources/opencode-storage";
import { convertPi } from "./sources/pi";
import { convertTapedeckExport } from "./sources/tapedeck";
import type { Conversion, ImportSource, SkippedLine } from "./types";
import { zstdLines } from "./zstd-lines";

/** Environment variables the default locations read. */
export type ImportEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The default folders of a source: Claude Code `$CLAUDE_CONFIG_DIR/projects` (default
 * `~/.claude`), Codex `$CODEX_HOME/sessions` (default `~/.codex`), pi
 * `$PI_CODING_AGENT_DIR/sessions` (default `~/.pi/agent`), opencode
 * `$XDG_DATA_HOME/opencode` (default `~/.local/share`). Tapedeck exports have none.
 */
export function defaultLocations(
  source: ImportSource,
  env: ImportEnvironment = process.env,
): string[] {
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  const or = (name: string, fallback: string) => {
    const value = env[name];
    return value !== undefined && value !== "" ? resolve(value) : fallback;
  };
  switch (source) {
    case "claude-code":
      return [join(or("CLAUDE_CONFIG_DIR", join(home, ".claude")), "projects")];
    case "codex":
      return [join(or("CODEX_HOME", join(home, ".codex")), "sessions")];
    case "pi":
      return [join(or("PI_CODING_AGENT_DIR", join(home, ".pi", "agent")), "sessions")];
    case "opencode":
      return [join(or("XDG_DATA_HOME", join(home, ".local", "share")), "opencode")];
    case "gemini":
      return [join(home, ".gemini", "tmp")];
    case "tapedeck":
      return [];
  }
}

/** One file (or opencode storage session) to import. */
export interface ImportUnit {
  path: string;
  /** Bytes of source read for it (for progress and throughput). */
  bytes: number;
  /** Reads and converts it; throws only when the file cannot be read at all. */
  convert(): Conversion;
  /**
   * {@link convert}, keeping the converter's state and what was read (`kept-conversion.ts`):
   * Codex `.jsonl` rollouts and Claude Code transcripts without sub-agent files only.
   */
  convertKeeping?(): KeptConversion;
}

/** Options of {@link findUnits}. */
export interface FindOptions {
  /** Longer lines are skipped (default 16 MiB). */
  maxLineBytes?: number;
}

/**
 * The units to import under `paths` (files or folders, walked recursively). A path that does not
 * exist gives a unit whose `convert` throws, so it is reported with the others.
 */
export function findUnits(
  source: ImportSource,
  paths: readonly string[],
  options: FindOptions = {},
): ImportUnit[] {
  const units: ImportUnit[] = [];
  // Folders (and files) already listed, by device and inode: a link back to a parent folder, or
  // a folder given twice, is read once.
  const seen = new Set<string>();
  for (const given of paths) {
    const path = resolve(given);
    let stat: BigIntStats;
    try {
      stat = fileStats(path, { followLinks: true, throwIfNoEntry: true }) as BigIntStats;
    } catch (error) {
      units.push(unreadableUnit(path, error));
      continue;
    }
    if (!stat.isDirectory()) {
      if (!firstTime(seen, stat)) continue;
      if (!stat.isFile()) {
        units.push(unreadableUnit(path, new NotAFileError(path)));
        continue;
      }
      if (source === "opencode" && path.endsWith(".db")) units.push(...databaseUnits(path));
      else units.push(fileUnit(source, path, options));
      continue;
    }
    if (source === "opencode") {
      // The database (opencode ≥ 1.2) holds what the storage folder held before its migration.
      const database = opencodeDatabase(path);
      if (database !== undefined) {
        units.push(...databaseUnits(database));
        continue;
      }
      const storage = opencodeStorageDir(path);
      if (storage !== undefined) {
        for (const file of opencodeStorageSessions(storage)) units.push(storageUnit(storage, file));
        continue;
      }
    }
    for (const found of walk(path, stat, seen, (file) => matches(source, file))) {
      units.push(
        found.error === undefined
          ? fileUnit(source, found.path, options)
          : unreadableUnit(found.path, found.error),
      );
    }
  }
  return units;
}

/** A path that could not be read: its `convert` throws why (reported with the other files). */
function unreadableUnit(path: string, error: unknown): ImportUnit {
  return {
    path,
    bytes: 0,
    convert: () => {
      throw error;
    },
  };
}

/** True the first time this file or folder (device and inode) is met. */
/** A file's device and inode (bigint: see `fileStats`). */
type FileIdentity = { dev: bigint; ino: bigint };

function firstTime(seen: Set<string>, stat: FileIdentity): boolean {
  const id = `${stat.dev}:${stat.ino}`;
  if (seen.has(id)) return false;
  seen.add(id);
  return true;
}

function matches(source: ImportSource, file: string): boolean {
  switch (source) {
    case "claude-code":
      // Sub-agent transcripts are read with their parent.
      return file.endsWith(".jsonl") && basename(dirname(file)) !== "subagents";
    case "codex":
      return file.endsWith(".jsonl") || file.endsWith(".jsonl.zst");
    case "pi":
    case "tapedeck":
      return file.endsWith(".jsonl");
    case "opencode":
      return file.endsWith(".json");
    case "gemini":
      // Saved chats (`<project hash>/chats/session-*.json`) and checkpoints
      // (`<project hash>/checkpoint-<tag>.json`).
      return (
        (file.endsWith(".json") && basename(dirname(file)) === "chats") || isGeminiCheckpoint(file)
      );
  }
}

function fileUnit(source: ImportSource, path: string, options: FindOptions): ImportUnit {
  const bytes = sizeOf(path);
  const lines = (file: string): SourceFile => {
    // A .zst decompresses as a stream, line by line: memory never holds the whole file.
    const split = file.endsWith(".zst")
      ? zstdLines(file, { path: file, ...options })
      : splitLines(readSourceBytes(file), { path: file, ...options });
    skippedBySplit.push(...split.skipped);
    return { path: file, lines: split.lines };
  };
  const skippedBySplit: SkippedLine[] = [];
  const withSplitSkips = (conversion: Conversion): Conversion => ({
    ...conversion,
    skipped: [...skippedBySplit, ...conversion.skipped],
  });
  switch (source) {
    case "claude-code": {
      const subagents = claudeSubagentFiles(path);
      return {
        path,
        bytes: bytes + subagents.reduce((sum, file) => sum + sizeOf(file), 0),
        convert: () => withSplitSkips(convertClaudeCode(lines(path), subagents.map(lines))),
        ...(subagents.length > 0
          ? {}
          : { convertKeeping: () => convertKeeping(source, path, options.maxLineBytes) }),
      };
    }
    case "codex":
      return {
        path,
        bytes,
        convert: () => withSplitSkips(convertCodex(lines(path))),
        ...(keepsState(source, path)
          ? { convertKeeping: () => convertKeeping(source, path, options.maxLineBytes) }
          : {}),
      };
    case "pi":
      return { path, bytes, convert: () => withSplitSkips(convertPi(lines(path))) };
    case "tapedeck":
      return { path, bytes, convert: () => withSplitSkips(convertTapedeckExport(lines(path))) };
    case "opencode":
    case "gemini":
      return {
        path,
        bytes,
        convert: () => {
          const parsed = parseJsonDocument(readFileSync(path, "utf8"), path);
          if (!parsed.ok) return { sessions: [], skipped: [parsed.skipped], entries: 0 };
          if (source === "gemini" && isGeminiCheckpoint(path)) {
            return convertGeminiCheckpoint(parsed.value, path, createdTime(path));
          }
          return source === "gemini"
            ? convertGemini(parsed.value, path)
            : convertOpencode(parsed.value, path);
        },
      };
  }
}

function databaseUnits(database: string): ImportUnit[] {
  let sessions: ReturnType<typeof opencodeDatabaseSessions>;
  try {
    sessions = opencodeDatabaseSessions(database);
  } catch (error) {
    return [
      {
        path: database,
        bytes: 0,
        convert: () => {
          throw error;
        },
      },
    ];
  }
  return sessions.map((session) => databaseUnit(database, session));
}

function databaseUnit(database: string, session: { id: string; bytes: number }): ImportUnit {
  return {
    path: `${database}#${session.id}`,
    bytes: session.bytes,
    convert: () => {
      const skipped: SkippedLine[] = [];
      const document = readOpencodeDatabaseSession(database, session.id, skipped);
      const conversion = convertOpencode(document, `${database}#${session.id}`);
      return { ...conversion, skipped: [...skipped, ...conversion.skipped] };
    },
  };
}

function storageUnit(storage: string, sessionFile: string): ImportUnit {
  return {
    path: sessionFile,
    bytes: sizeOf(sessionFile),
    convert: () => {
      const skipped: SkippedLine[] = [];
      const document = readOpencodeStorageSession(storage, sessionFile, skipped);
      const conversion = convertOpencode(document, sessionFile);
      return { ...conversion, skipped: [...skipped, ...conversion.skipped] };
    },
  };
}

/** A Claude Code transcript's sub-agent files (`<id>/subagents/*.jsonl`), sorted. */
export function claudeSubagentFiles(transcript: string): string[] {
  return listJsonl(join(transcript.replace(/\.jsonl$/, ""), "subagents"));
}

function listJsonl(directory: string): string[] {
  if (!existsSync(directory)) return [];
  try {
    return readdirSync(directory)
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
      .map((name) => join(directory, name));
  } catch {
    return [];
  }
}

/**
 * Files under `root` that `wanted` accepts, sorted (Codex's dated folders come out oldest first),
 * each file and folder once (`seen`). What cannot be read is listed with its error: a folder that
 * cannot be listed, an entry that cannot be looked at (a dangling link to a wanted file, a link
 * loop) unless it is a missing file of a name not wanted, and a wanted name that is no regular
 * file (a FIFO would block the read forever).
 */
function walk(
  root: string,
  rootStat: FileIdentity,
  seen: Set<string>,
  wanted: (file: string) => boolean,
): { path: string; error?: unknown }[] {
  const found: { path: string; error?: unknown }[] = [];
  const visit = (directory: string, stat: FileIdentity) => {
    if (!firstTime(seen, stat)) return;
    let names: string[];
    try {
      names = readdirSync(directory).sort();
    } catch (error) {
      found.push({ path: directory, error });
      return;
    }
    for (const name of names) {
      const path = join(directory, name);
      let entry: BigIntStats;
      try {
        entry = fileStats(path, { followLinks: true, throwIfNoEntry: true }) as BigIntStats;
      } catch (error) {
        if (wanted(path) || (error as { code?: unknown }).code !== "ENOENT") {
          found.push({ path, error });
        }
        continue;
      }
      if (entry.isDirectory()) visit(path, entry);
      else if (!wanted(path) || !firstTime(seen, entry)) continue;
      else if (entry.isFile()) found.push({ path });
      else found.push({ path, error: new NotAFileError(path) });
    }
  };
  visit(root, rootStat);
  return found;
}

function sizeOf(path: string): number {
  try {
    return Number(fileStats(path, { followLinks: true })?.size ?? 0);
  } catch {
    return 0;
  }
}

/**
 * When a file was created (its birth time; the mtime where the file system keeps none): what a
 * source without times (a Gemini CLI checkpoint) is timed by. Rewriting the file keeps it.
 */
function createdTime(path: string): string {
  try {
    const stats = statSync(path);
    const ms = stats.birthtimeMs > 0 ? stats.birthtimeMs : stats.mtimeMs;
    return new Date(Math.floor(ms)).toISOString();
  } catch {
    return new Date(0).toISOString();
  }
}
