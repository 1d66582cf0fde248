/**
 * Loads a CommonJS bundle through a V8 code cache: `tapedeck sessions search` runs its own bundle
 * (`fresh-search.cjs`, see `tsup.config.ts`) this way. Node 20 has no compile cache (Node 22's
 * `module.enableCompileCache()` does not cover `vm` scripts either); without one, every start
 * parses the bundle and compiles each function it runs again, ≈ 10 ms of a 55 ms search under
 * load. The cache is written once per bundle, after the first run (so it holds the functions that
 * run compiled), into a folder of the user's own in the temp directory, keyed by Node's version,
 * the architecture and the bundle file's size, mtime, inode and ctime; V8 itself refuses a cache
 * made by another V8 or with other flags, and the cache is then written again. Any failure to
 * read or write the cache only costs the compile.
 *
 * Size and mtime alone do not tell two builds apart: V8 checks a cache against its source's
 * length only, and packagers pin mtimes (npm tarballs 1985-10-26, the Nix store 1970), so an
 * upgrade that changed a version string ran the old build's code. A new file (an install, a
 * copy, a build) has another inode, and a file written in place another ctime, which no tool sets
 * back; a cache is then compiled again once.
 *
 * A release build of V8 checks no checksum: a cache damaged inside (a disk fault, a crash before
 * its data reached the disk) stops the process in V8's deserializer (SIGTRAP, SIGSEGV), and did so
 * on every later start. A start that reads a cache leaves a marker with its pid until the bundle
 * ran (`saveCache`); a start that finds the marker of a process no longer alive drops the cache.
 */
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

/**
 * `node:fs` through `require`: imported as an ES module, Node copies every export of it into a
 * module namespace, and the `fs.ReadStream` getter loads all of Node's streams (≈ 2 ms) that a
 * search never uses.
 */
export const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
const {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} = fs;

/** A bundle's exports, and the function that writes its code cache when it has none yet. */
export interface CompiledBundle {
  exports: Record<string, unknown>;
  /** Writes the cache (after the bundle ran, so that it holds what ran); never throws. */
  saveCache(): void;
}

/** The folder of the user's code caches, or `null` when it is not theirs alone (or a link). */
function cacheFolder(): string | null {
  const uid = process.getuid?.();
  const folder = path.join(os.tmpdir(), `tapedeck-code-cache-${uid ?? "user"}`);
  // Not recursive: Node's recursive mkdir loops forever under a parent that refuses children
  // (a TMPDIR in /proc); a missing temp directory means no cache.
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
  }
  // Not followed: a link planted under that name (the temp directory is shared) is refused.
  const stat = lstatSync(folder);
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0)
    return null;
  return folder;
}

/** Loads the CommonJS bundle at `url` with its code cache (see the module comment). */
export function loadCompiled(url: URL): CompiledBundle {
  const file = fileURLToPath(url);
  const source = readFileSync(file, "utf8");
  let cacheFile: string | null = null;
  let cached: Buffer | undefined;
  let marker: string | null = null;
  try {
    const folder = cacheFolder();
    const { size, mtimeMs, ino, ctimeNs } = statSync(file, { bigint: true });
    const key = `${process.version}-${process.arch}-${size}-${mtimeMs}-${ino}-${ctimeNs}`;
    cacheFile = folder === null ? null : path.join(folder, `${path.basename(file)}-${key}.v8`);
    if (cacheFile !== null) {
      cached = readFileSync(cacheFile);
      marker = `${cacheFile}.reading`;
      if (diedReading(marker)) {
        cached = undefined;
        unlinkSync(marker);
        marker = null;
      } else {
        writeFileSync(marker, String(process.pid), { mode: 0o600 });
      }
    }
  } catch {
    // No cache yet (or none possible): compiled from source.
  }
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, cachedData: cached },
  );
  const module = { exports: {} as Record<string, unknown> };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports,
    saveCache() {
      if (marker !== null) {
        try {
          unlinkSync(marker);
        } catch {
          // Removed by a start at the same time: it marks only one of them.
        }
        marker = null;
      }
      if (cacheFile === null || (cached !== undefined && !script.cachedDataRejected)) return;
      try {
        const temp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        renameSync(temp, cacheFile);
        removeOlderBuilds(cacheFile, path.basename(file));
      } catch {
        // A full or read-only temp directory: the next start compiles again.
      }
    },
  };
}

/**
 * True when the start that left `marker` (its pid) died before its bundle ran: it was reading the
 * cache, which is then not read again. False without a marker, or while that process lives (a
 * start at the same time).
 */
function diedReading(marker: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(marker, "latin1"));
  } catch {
    return false;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return pid === process.pid;
  } catch (error) {
    // EPERM: alive, another user's (a pid reused since).
    return (error as { code?: unknown }).code !== "EPERM";
  }
}

/**
 * Removes the caches this Node wrote for earlier builds of the same bundle (another size or
 * mtime): each upgrade would otherwise leave one behind. Other Node versions' caches stay, for a
 * person who switches between them.
 */
function removeOlderBuilds(cacheFile: string, bundle: string): void {
  const folder = path.dirname(cacheFile);
  const name = path.basename(cacheFile);
  const sameNode = `${bundle}-${process.version}-${process.arch}-`;
  for (const other of readdirSync(folder)) {
    // Their markers too (`.v8.reading`, left by a start that died).
    const cache = other.endsWith(".v8") || other.endsWith(".v8.reading");
    if (!other.startsWith(name) && other.startsWith(sameNode) && cache) {
      unlinkSync(path.join(folder, other));
    }
  }
}
