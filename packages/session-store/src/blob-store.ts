/**
 * The home's content-addressed blob store: `<home>/blobs/sha256/<2 hex>/<62 hex>.zst`, one zstd
 * frame of the payload's bytes. Written temp + rename (durable when the log that references a
 * blob is fsynced: {@link BlobStore.flush} runs first), verified by hash on every read.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { BlobReadError, InvalidBlobHashError } from "./errors";
import {
  faultWriting,
  fileStats,
  fsyncDirectory,
  hasErrorCode,
  makeDirectories,
  removeFile,
  tempPathIn,
  writeTemp,
} from "./fs-util";
import { compressBytes, decompressBytes } from "./zstd";

const CODEC_SUFFIX = ".zst";
const hashPattern = /^[0-9a-f]{64}$/;

/** Node's own `require`, for a built-in loaded on first use. */
const requireBuiltin = createRequire(import.meta.url);

/**
 * The sha256 of `data` in lowercase hex. `node:crypto` is loaded on the first call: only a
 * command that writes or reads a blob needs it, and reading commands that meet no blob
 * (`tapedeck sessions search`, `list`) then never load it.
 */
export function sha256Hex(data: Uint8Array): string {
  const { createHash } = requireBuiltin("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(data).digest("hex");
}

/** The blob store of the home that holds log `logPath` (`<home>/sessions/<id>.jsonl`). */
export function blobsBesideLog(logPath: string): BlobStore {
  return new BlobStore(dirname(dirname(logPath)));
}

/** One home's blob store; cheap to make (holds paths only and the blobs not yet fsynced). */
export class BlobStore {
  /** `<home>/blobs`. */
  readonly root: string;
  private readonly dir: string;
  /** Blobs written since the last {@link flush}, fsynced before a log line that names them is. */
  private readonly unsynced = new Set<string>();

  constructor(home: string) {
    this.root = join(home, "blobs");
    this.dir = join(this.root, "sha256");
  }

  /** The file of the blob `hash`. */
  pathOf(hash: string): string {
    if (!hashPattern.test(hash)) throw new InvalidBlobHashError(hash);
    return join(this.dir, hash.slice(0, 2), `${hash.slice(2)}${CODEC_SUFFIX}`);
  }

  /**
   * Stores `data` under its sha256 and returns the hash; a blob already there is kept (same
   * name, same bytes). The file appears whole or not at all (temp file + rename).
   */
  put(data: Uint8Array, hash = sha256Hex(data)): string {
    const path = this.pathOf(hash);
    if (fileStats(path) !== undefined) return hash;
    const folder = dirname(path);
    try {
      makeDirectories(folder);
      const temp = tempPathIn(folder, "blob");
      writeTemp(temp, compressBytes(data), false);
      fs.renameSync(temp, path);
    } catch (error) {
      // A full disk is one sentence naming the blob, as for a log (`disk full (ENOSPC) …`).
      throw faultWriting(error, path, dirname(this.root));
    }
    this.unsynced.add(path);
    return hash;
  }

  /** Fsyncs the blobs written since the last call and their folders (before a log is fsynced). */
  flush(): void {
    if (this.unsynced.size === 0) return;
    const folders = new Set<string>();
    for (const path of this.unsynced) {
      const fd = fs.openSync(path, "r");
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      folders.add(dirname(path));
    }
    for (const folder of folders) fsyncDirectory(folder);
    this.unsynced.clear();
  }

  /**
   * The exact bytes of blob `hash`, checked against it.
   *
   * @throws {@link BlobReadError} `BLOB_MISSING` or `BLOB_CORRUPT` (a file that does not decompress, or
   *   whose bytes hash to another name).
   */
  get(hash: string): Buffer {
    const path = this.pathOf(hash);
    let stored: Buffer;
    try {
      stored = fs.readFileSync(path);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) {
        throw new BlobReadError(
          "BLOB_MISSING",
          hash,
          `blob ${hash} is missing (blobs/sha256/${hash.slice(0, 2)}/…)`,
        );
      }
      throw error;
    }
    let data: Buffer;
    try {
      data = decompressBytes(stored);
    } catch {
      throw new BlobReadError("BLOB_CORRUPT", hash, `blob ${hash} is damaged (not a zstd frame)`);
    }
    if (sha256Hex(data) !== hash) {
      throw new BlobReadError(
        "BLOB_CORRUPT",
        hash,
        `blob ${hash} is damaged (its bytes hash to another name)`,
      );
    }
    return data;
  }

  /** Every blob on disk with its stored size (temp files left by a crash included as `temp`). */
  list(): { hash: string; path: string; bytes: number; temp: boolean }[] {
    const found: { hash: string; path: string; bytes: number; temp: boolean }[] = [];
    let prefixes: string[];
    try {
      prefixes = fs.readdirSync(this.dir);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return found;
      throw error;
    }
    for (const prefix of prefixes) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      const folder = join(this.dir, prefix);
      for (const name of fs.readdirSync(folder)) {
        const path = join(folder, name);
        const stat = fileStats(path);
        if (stat === undefined || !stat.isFile()) continue;
        const temp = name.startsWith(".") && name.endsWith(".tmp");
        const hash = `${prefix}${name.slice(0, -CODEC_SUFFIX.length)}`;
        if (!temp && (!name.endsWith(CODEC_SUFFIX) || !hashPattern.test(hash))) continue;
        found.push({ hash: temp ? "" : hash, path, bytes: Number(stat.size), temp });
      }
    }
    return found;
  }

  /** Removes blob file `path` (as {@link list} named it). */
  remove(path: string): void {
    removeFile(path);
  }
}
