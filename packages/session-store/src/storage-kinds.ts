/**
 * What the store keeps in the home, by kind, for `tapedeck storage`: plain logs, compressed
 * (cold) logs, blobs, kept tails and the trash. Each kind is a `StorageContributor` of `@tapedeck/host`
 * (declared here structurally: the store does not depend on host). Only the store lists its
 * folders (architecture/session-store.md, "Nothing outside the store lists the folder").
 */
import * as fs from "node:fs";
import { join } from "node:path";
import type { BlobStore } from "./blob-store";
import { COLD_SUFFIX } from "./cold-log";
import { parseSegmentName } from "./cold-segment";
import { openColdStream } from "./cold-stream";
import { hasErrorCode, parseTempName, processAlive, removeFile } from "./fs-util";
import { sessionIdOfFileName } from "./log-names";

/** One kind of stored data; structurally `StorageContributor` of `@tapedeck/host`. */
export interface StoreStorageKind {
  readonly kind: string;
  usage(): Promise<{ bytes: number; files: number }>;
  reclaim(live: ReadonlySet<string>, options: { dryRun: boolean }): Promise<{ bytes: number }>;
}

interface FileInfo {
  name: string;
  path: string;
  bytes: number;
}

function filesIn(folder: string): FileInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return [];
    throw error;
  }
  const files: FileInfo[] = [];
  for (const name of names) {
    const path = join(folder, name);
    const stat = fs.lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isFile()) files.push({ name, path, bytes: stat.size });
  }
  return files;
}

function total(files: readonly FileInfo[]): { bytes: number; files: number } {
  return { bytes: files.reduce((sum, file) => sum + file.bytes, 0), files: files.length };
}

const blobKey = Buffer.from('"blob":"');
/** Bytes of a name match: the key, 64 hex digits, the closing quote. */
const MATCH_BYTES = blobKey.length + 65;
const hexName = /^[0-9a-f]{64}$/;
const SCAN_CHUNK = 1 << 20;

/**
 * Adds the blob hashes a log's raw lines name (`"blob":"<sha256>"`; references are never resolved
 * here) to `into`, reading `size` bytes through `read` in chunks of `chunkSize` (a cold log
 * decompressed as it goes): a name split between two chunks is found whole.
 */
export function blobsNamedIn(
  read: (target: Buffer, length: number, position: number) => number,
  size: number,
  into: Set<string>,
  chunkSize = SCAN_CHUNK,
): void {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, size)) + MATCH_BYTES);
  let kept = 0;
  for (let position = 0; position < size; ) {
    const count = read(buffer.subarray(kept), Math.min(chunkSize, size - position), position);
    if (count === 0) break;
    position += count;
    const data = buffer.subarray(0, kept + count);
    let at = data.indexOf(blobKey, 0);
    while (at !== -1 && at + MATCH_BYTES <= data.length) {
      const hash = data.toString("latin1", at + blobKey.length, at + MATCH_BYTES - 1);
      if (data[at + MATCH_BYTES - 1] === 0x22 && hexName.test(hash)) into.add(hash);
      at = data.indexOf(blobKey, at + 1);
    }
    // What may still begin a name: an unfinished match, else the last bytes of a split key.
    const keepFrom = at !== -1 ? at : Math.max(0, data.length - (blobKey.length - 1));
    data.copy(buffer, 0, keepFrom, data.length);
    kept = data.length - keepFrom;
  }
}

/** {@link blobsNamedIn} of one file of `folder`: a plain log, or a cold one read as a stream. */
function blobsNamedInFile(file: FileInfo, into: Set<string>): void {
  if (file.name.endsWith(COLD_SUFFIX)) {
    // A damaged one throws (COLD_LOG_CORRUPT): the blobs it may name are never reclaimed.
    const cold = openColdStream(file.path, file.name.slice(0, 36));
    if (cold === undefined) return;
    try {
      blobsNamedIn(
        (target, length, position) => cold.read(target, 0, length, position),
        cold.size,
        into,
      );
    } finally {
      cold.close();
    }
    return;
  }
  let fd: number;
  try {
    fd = fs.openSync(file.path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return;
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    blobsNamedIn(
      (target, length, position) => fs.readSync(fd, target, 0, length, position),
      size,
      into,
    );
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The blobs any log in `sessionsDir` or `trashDir` names (a session in the trash may be
 * restored with `mv`, so its blobs stay until the trash is emptied).
 */
export function referencedBlobs(sessionsDir: string, trashDir: string): Set<string> {
  const named = new Set<string>();
  for (const folder of [sessionsDir, trashDir]) {
    for (const file of filesIn(folder)) {
      if (file.name.startsWith(".")) continue;
      if (file.name.endsWith(COLD_SUFFIX) || file.name.includes(".jsonl")) {
        blobsNamedInFile(file, named);
      }
    }
  }
  return named;
}

/**
 * Removes (or, `dryRun`, counts) the segments of `sessionsDir` that a fold left when a crash cut
 * it between the new `.zst`'s rename and the segment's removal: a segment whose base is not the
 * plain size of the `.zst` beside it, which grew by the segment's bytes (`cold-segment.ts`). A
 * segment without a `.zst`, or beside one whose frame headers cannot be read, is kept.
 */
function reclaimFoldedSegments(sessionsDir: string, dryRun: boolean): { bytes: number } {
  let bytes = 0;
  for (const file of filesIn(sessionsDir)) {
    const segment = parseSegmentName(file.name);
    if (segment === undefined) continue;
    const coldPath = join(sessionsDir, `${segment.sessionId}.jsonl${COLD_SUFFIX}`);
    let plainSize: number | undefined;
    try {
      const cold = openColdStream(coldPath, segment.sessionId);
      plainSize = cold?.size;
      cold?.close();
    } catch {
      continue;
    }
    if (plainSize === undefined || plainSize === segment.base) continue;
    if (!dryRun) removeFile(file.path);
    bytes += file.bytes;
  }
  return { bytes };
}

const TEMP_AGE_MS = 60 * 60 * 1000;

/** The store's kinds of data in a home (see the file's comment); `tails`: `kept-tails-kind.ts`. */
export function storeStorageKinds(paths: {
  sessionsDir: string;
  trashDir: string;
  blobs: BlobStore;
  tails: StoreStorageKind;
}): StoreStorageKind[] {
  const { sessionsDir, trashDir, blobs, tails } = paths;
  // A cold log's segment (`cold-segment.ts`) is plain log bytes: counted with the plain logs.
  const logs = (cold: boolean) =>
    filesIn(sessionsDir).filter((file) =>
      cold
        ? file.name.endsWith(COLD_SUFFIX) &&
          sessionIdOfFileName(file.name.slice(0, -COLD_SUFFIX.length)) !== undefined
        : sessionIdOfFileName(file.name) !== undefined || parseSegmentName(file.name) !== undefined,
    );
  const nothing = async () => ({ bytes: 0 });
  return [
    {
      kind: "plain logs",
      usage: async () => total(logs(false)),
      // Segments a fold left behind (its `.zst` holds their bytes since).
      reclaim: async (_live, options) => reclaimFoldedSegments(sessionsDir, options.dryRun),
    },
    { kind: "compressed logs", usage: async () => total(logs(true)), reclaim: nothing },
    {
      kind: "blobs",
      usage: async () => {
        const found = blobs.list();
        return { bytes: found.reduce((sum, blob) => sum + blob.bytes, 0), files: found.length };
      },
      // Unreferenced blobs, and temp files of a blob write a killed process left.
      reclaim: async (_live, options) => {
        let found = blobs.list();
        // Files a sweep killed in between set aside go back first (a writer may name one since).
        if (!options.dryRun && blobs.restoreSetAside(found) > 0) found = blobs.list();
        const named = referencedBlobs(sessionsDir, trashDir);
        // A blob no log names yet is kept for its age (a writer's, or a compact's whose log is not
        // written yet): it is live too.
        const live = new Set(named);
        for (const blob of found) {
          if (!blob.temp && !named.has(blob.hash) && !olderThan(blob.path, TEMP_AGE_MS)) {
            live.add(blob.hash);
          }
        }
        // A delta is read with its base: the base stays as long as the delta does, named or not.
        for (const hash of live) {
          const base = blobs.baseOf(hash);
          if (base !== undefined) named.add(base);
        }
        let bytes = 0;
        for (const blob of found) {
          // A raw blob beside its compressed form is what a compact killed in between left.
          const leftover = blob.temp
            ? leftoverTemp(blob.path)
            : blob.raw && fs.existsSync(blobs.pathOf(blob.hash));
          const unnamed =
            !leftover && !blob.temp && !named.has(blob.hash) && olderThan(blob.path, TEMP_AGE_MS);
          if (!leftover && !unnamed) continue;
          if (options.dryRun) bytes += blob.bytes;
          else if (leftover) {
            blobs.remove(blob.path);
            bytes += blob.bytes;
          } else if (blobs.removeUnlessYoung(blob.path, TEMP_AGE_MS)) bytes += blob.bytes;
        }
        return { bytes };
      },
    },
    tails,
    {
      kind: "trash",
      usage: async () => total(filesIn(trashDir)),
      // Only `storage --empty-trash` frees the trash (see emptyTrash).
      reclaim: nothing,
    },
  ];
}

/**
 * A blob younger than an hour is kept even when no log names it yet: a writer puts the blob
 * before it writes the line that names it.
 */
function olderThan(path: string, ageMs: number): boolean {
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  return stat !== undefined && Date.now() - stat.mtimeMs >= ageMs;
}

function leftoverTemp(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const parsed = parseTempName(name);
  if (parsed !== undefined && !processAlive(parsed.pid)) return true;
  return olderThan(path, TEMP_AGE_MS);
}

/**
 * Removes every file in the trash; returns the bytes freed (or, with `dryRun`, that would be) and
 * the sessions whose files those were (named `<id>.jsonl…`).
 */
export function emptyTrash(
  trashDir: string,
  options: { dryRun: boolean },
): { bytes: number; files: number; sessionIds: string[] } {
  const files = filesIn(trashDir);
  if (!options.dryRun) for (const file of files) fs.unlinkSync(file.path);
  const sessionIds = new Set<string>();
  for (const file of files) {
    const sessionId = sessionIdOfFileName(file.name.slice(0, 36 + ".jsonl".length));
    if (sessionId !== undefined) sessionIds.add(sessionId);
  }
  return { ...total(files), sessionIds: [...sessionIds] };
}
