import { createHash } from "node:crypto";
import { lstat, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { CheckpointError } from "./errors";

/** The file of a workspace store holding its light checkpoints, one framed record each. */
export const LIGHT_FILE = "light-checkpoints";
/** Files larger than this are written as git blobs and named by id, not put in the record. */
export const INLINE_LIMIT = 64 * 1024;
/** A record's frame: magic, payload length, crc32 of the payload (big-endian). */
const MAGIC = Buffer.from("TDL1", "latin1");
const FRAME_HEADER = 12;
/** A light checkpoint's id: never hex alone, so never taken for a git id. */
const LIGHT_ID = /^lc-[0-9a-f]{32}$/;
/** A lock on the record file older than this was left by a killed process. */
const STALE_LOCK_MS = 60_000;

/** One path of a light record: its state in the checkpoint. */
export interface LightEntry {
  path: string;
  /** Git mode (`100644`, `100755`, `120000`, `160000`), or `000000`: no such file. */
  mode: string;
  /** The file's bytes (a symlink's target), when stored in the record. */
  content?: Buffer;
  /** The git object id, when the content is a git object (a large file, a submodule). */
  oid?: string;
}

/** A light checkpoint: the paths that differ from its parent, on top of a full checkpoint. */
export interface LightRecord {
  id: string;
  /** The checkpoint before it (light, or the base). */
  parent: string;
  /** The full checkpoint (a commit) the chain starts from. */
  base: string;
  /** The ref of the session that took it. */
  ref: string;
  entries: LightEntry[];
}

/** Whether `id` names a light checkpoint. */
export function isLightId(id: string): boolean {
  return LIGHT_ID.test(id);
}

/** The payload of a record (what its frame holds, compressed) and its id. */
export function encodeLightRecord(record: Omit<LightRecord, "id">): {
  id: string;
  frame: Buffer;
} {
  const contents: Buffer[] = [];
  const entries = record.entries.map((entry) => {
    if (entry.content !== undefined) {
      contents.push(entry.content);
      return [entry.path, entry.mode, entry.content.length];
    }
    return entry.oid === undefined ? [entry.path, entry.mode] : [entry.path, entry.mode, entry.oid];
  });
  const header = JSON.stringify({ p: record.parent, b: record.base, r: record.ref, e: entries });
  const payload = deflateRawSync(Buffer.concat([Buffer.from(`${header}\n`), ...contents]), {
    level: 9,
  });
  const frame = Buffer.alloc(FRAME_HEADER + payload.length);
  MAGIC.copy(frame, 0);
  frame.writeUInt32BE(payload.length, 4);
  frame.writeUInt32BE(crc32(payload), 8);
  payload.copy(frame, FRAME_HEADER);
  return { id: idOf(payload), frame };
}

function idOf(payload: Buffer): string {
  return `lc-${createHash("sha256").update(payload).digest("hex").slice(0, 32)}`;
}

/** Parses one record's payload; throws on anything malformed. */
function decodePayload(payload: Buffer): LightRecord {
  const whole = inflateRawSync(payload);
  const newline = whole.indexOf(10);
  if (newline < 0) throw new Error("no header line");
  const header = JSON.parse(whole.subarray(0, newline).toString("utf8")) as {
    p: unknown;
    b: unknown;
    r: unknown;
    e: unknown;
  };
  if (typeof header.p !== "string" || typeof header.b !== "string" || typeof header.r !== "string")
    throw new Error("bad header");
  if (!Array.isArray(header.e)) throw new Error("bad entries");
  let offset = newline + 1;
  const entries: LightEntry[] = header.e.map((raw: unknown) => {
    if (!Array.isArray(raw) || typeof raw[0] !== "string" || typeof raw[1] !== "string")
      throw new Error("bad entry");
    const [file, mode, third] = raw as [string, string, unknown];
    if (typeof third === "number") {
      const content = Buffer.from(whole.subarray(offset, offset + third));
      if (content.length !== third) throw new Error("content cut short");
      offset += third;
      return { path: file, mode, content };
    }
    return typeof third === "string" ? { path: file, mode, oid: third } : { path: file, mode };
  });
  if (offset !== whole.length) throw new Error("trailing bytes");
  return { id: idOf(payload), parent: header.p, base: header.b, ref: header.r, entries };
}

/** What a record file holds: the readable records, and where damaged ones were. */
export interface LightRecords {
  records: Map<string, LightRecord>;
  /** Byte offsets of damaged records (bad crc, bad frame, unreadable payload). */
  damaged: number[];
  /** Bytes after the last whole record (a torn last append): ignored. */
  tornTail: number;
}

/**
 * Parses a record file. A damaged record (crc or frame wrong, payload unreadable) is skipped and
 * its offset noted; the next frame is found by its magic. A record cut short at the end (a torn
 * last write) is ignored.
 */
export function parseLightRecords(data: Buffer): LightRecords {
  const records = new Map<string, LightRecord>();
  const damaged: number[] = [];
  let offset = 0;
  let tornTail = 0;
  while (offset < data.length) {
    const framed =
      data.length - offset >= FRAME_HEADER &&
      data.subarray(offset, offset + 4).equals(MAGIC) &&
      offset + FRAME_HEADER + data.readUInt32BE(offset + 4) <= data.length;
    if (framed) {
      const end = offset + FRAME_HEADER + data.readUInt32BE(offset + 4);
      const payload = data.subarray(offset + FRAME_HEADER, end);
      if (crc32(payload) === data.readUInt32BE(offset + 8)) {
        try {
          const record = decodePayload(payload);
          records.set(record.id, record);
          offset = end;
          continue;
        } catch {
          // a payload whose crc matches but cannot be read: damaged like a bad crc
        }
      }
    }
    const next = data.indexOf(MAGIC, offset + 1);
    if (next < 0) {
      // nothing whole after it: a torn last append when it started a frame, else damage
      const head = data.subarray(offset, offset + 4);
      if (head.equals(MAGIC.subarray(0, head.length)) && !framed) tornTail = data.length - offset;
      else damaged.push(offset);
      break;
    }
    damaged.push(offset);
    offset = next;
  }
  return { records, damaged, tornTail };
}

/** Reads and parses the record file of the store at `dir` (none: empty). */
export async function readLightRecords(dir: string): Promise<LightRecords> {
  const data = await readFile(path.join(dir, LIGHT_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return Buffer.alloc(0);
    throw error;
  });
  return parseLightRecords(data);
}

/**
 * Holds the record file's lock (a `.lock` file made exclusively) while `task` runs: appends and
 * the rewrite of reclaim never interleave. A lock older than a minute is a killed process's.
 */
export async function withLightLock<T>(dir: string, task: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, `${LIGHT_FILE}.lock`);
  for (let attempt = 0; ; attempt += 1) {
    try {
      await writeFile(lock, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 200) throw error;
      const info = await lstat(lock).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs > STALE_LOCK_MS) {
        await rm(lock, { force: true });
      } else {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }
  try {
    return await task();
  } finally {
    await rm(lock, { force: true });
  }
}

/**
 * Appends one framed record to the store's record file: one `write` under the file's lock, not
 * fsynced (like git's loose objects; a torn last record is ignored when read).
 */
export async function appendLightRecord(dir: string, frame: Buffer): Promise<void> {
  await withLightLock(dir, async () => {
    const handle = await open(path.join(dir, LIGHT_FILE), "a");
    try {
      await handle.write(frame);
    } finally {
      await handle.close();
    }
  });
}

/**
 * Rewrites the record file keeping only the records `keep` accepts (temp + fsync + rename, under
 * the lock); damaged bytes and a torn tail go too. Returns how many records were dropped.
 */
export async function rewriteLightRecords(
  dir: string,
  keep: (record: LightRecord) => boolean,
): Promise<number> {
  return withLightLock(dir, async () => {
    const file = path.join(dir, LIGHT_FILE);
    const data = await readFile(file).catch(() => undefined);
    if (data === undefined) return 0;
    const kept: Buffer[] = [];
    let dropped = 0;
    let offset = 0;
    // Frames are copied as they are (their ids are hashes of their payloads).
    while (offset + FRAME_HEADER <= data.length) {
      if (!data.subarray(offset, offset + 4).equals(MAGIC)) {
        const next = data.indexOf(MAGIC, offset + 1);
        if (next < 0) break;
        offset = next;
        continue;
      }
      const end = offset + FRAME_HEADER + data.readUInt32BE(offset + 4);
      const payload = data.subarray(offset + FRAME_HEADER, Math.min(end, data.length));
      let record: LightRecord | undefined;
      if (end <= data.length && crc32(payload) === data.readUInt32BE(offset + 8)) {
        try {
          record = decodePayload(payload);
        } catch {
          record = undefined;
        }
      }
      if (record === undefined) {
        const next = data.indexOf(MAGIC, offset + 1);
        if (next < 0) break;
        offset = next;
        continue;
      }
      if (keep(record)) kept.push(data.subarray(offset, end));
      else dropped += 1;
      offset = end;
    }
    const content = Buffer.concat(kept);
    if (content.length === data.length) return 0;
    const temp = `${file}.tmp`;
    const handle = await open(temp, "w");
    try {
      await handle.write(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    return dropped;
  });
}

/** `CHECKPOINT_NOT_FOUND` for a light checkpoint whose record is missing or damaged. */
export function missingLightRecord(
  id: string,
  dir: string,
  read: LightRecords,
  wanted?: string,
): CheckpointError {
  const where = path.join(dir, LIGHT_FILE);
  const damage =
    read.damaged.length > 0
      ? `; ${where} has ${read.damaged.length} damaged record(s), at byte ${read.damaged.join(", ")}`
      : "";
  const needs = wanted === undefined || wanted === id ? "" : ` (checkpoint ${wanted} builds on it)`;
  return new CheckpointError(
    "CHECKPOINT_NOT_FOUND",
    `light checkpoint ${id}${needs} has no readable record in ${where}${damage}`,
  );
}
