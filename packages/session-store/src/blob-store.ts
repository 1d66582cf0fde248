/**
 * The home's content-addressed blob store: `<home>/blobs/sha256/<2 hex>/<62 hex>` (the payload's
 * bytes, as a writer stores them) or `<62 hex>.zst` (one zstd frame of them, once `compact` has
 * compressed it). `put` writes temp + fsync + rename + folder fsync before any log line names the
 * blob (an import's: before its logs are fsynced, {@link BlobStore.flush}); a writer's
 * ({@link BlobStore.writeAll}) is fsynced beside the log at its next acknowledged point. Verified
 * by hash on every read.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import {
  BLOB_LEVEL,
  baseNamedBy,
  DELTA_HEADER_BYTES,
  DELTA_MAX_BYTES,
  type DeltaPlanner,
  unpackDelta,
} from "./blob-delta";
import { BlobReadError, InvalidBlobHashError } from "./errors";
import {
  faultWriting,
  fileStats,
  fsyncAndClose,
  fsyncAsync,
  fsyncDirectory,
  fsyncDirectoryAsync,
  hasErrorCode,
  makeDirectories,
  parseTempName,
  processAlive,
  removeFile,
  tempPathIn,
  writeAll as writeBytes,
  writeTemp,
} from "./fs-util";
import { LeftoverTemps } from "./leftover-temps";
import { compressBytesAt, decompressBytes, frameContentSize } from "./zstd";

const CODEC_SUFFIX = ".zst";
/** The temp label of a blob file the sweep set aside (`swept-<its name>`), see {@link BlobStore.removeUnlessYoung}. */
const SWEPT = "swept-";
const hashPattern = /^[0-9a-f]{64}$/;
/** The shard folders' names: the first two hex digits of a hash. */
const SHARDS = Array.from({ length: 256 }, (_, index) => index.toString(16).padStart(2, "0"));

/** One file of the blob store, as {@link BlobStore.list} finds it. */
export interface StoredBlob {
  /** The blob's sha256 (empty for a temp file). */
  hash: string;
  path: string;
  /** Bytes on disk. */
  bytes: number;
  /** A temp file a blob write left (killed before its rename). */
  temp: boolean;
  /** The uncompressed form (`<62 hex>`, no suffix), not yet compressed by `compact`. */
  raw: boolean;
}

/** How `compact` compresses one blob: the log's planner (delta or plain frame) and the blob's media type. */
export interface CompressPlan {
  planner: DeltaPlanner;
  mediaType: string | undefined;
}

/**
 * What {@link BlobStore.syncAll} fsyncs: blob files (by the descriptor they were written
 * through, still open) and the folders holding their names.
 */
export interface BlobSyncs {
  /** `synced`: the file's fsync, started when it was staged (settles to its error or undefined). */
  files: { path: string; fd: number; synced?: Promise<unknown> }[];
  folders: Set<string>;
}

/**
 * A blob's bytes written to a temp file in the store's folder before their hash (its name) is
 * known, their fsync already started on the thread pool: {@link BlobStore.writeAll} renames it
 * into place, so the fsync runs while the writer hashes the bytes and writes the lines.
 */
export interface StagedBlob {
  temp: string;
  fd: number;
  /** Settles to the fsync's error, or undefined: never rejects (absent: not started). */
  synced?: Promise<unknown>;
}

/** Staged blob files by the bytes they hold (the views a batch's payloads were encoded into). */
export type StagedBlobs = Map<Uint8Array, StagedBlob>;

/**
 * Makes `folder` and any missing parents up to (not above) `root`'s parent; returns the folders
 * it made, so their parents can be fsynced too (a new folder's name is an entry of its parent).
 */
function makeFolders(folder: string, root: string): string[] {
  if (fileStats(folder) !== undefined) return [];
  const made: string[] = [];
  for (let path = folder; path.length >= root.length; path = dirname(path)) {
    if (fileStats(path) !== undefined) break;
    made.unshift(path);
  }
  makeDirectories(folder);
  return made;
}

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

/**
 * The spares of this process's stores: a process that exits with a writer open (an error, a
 * `process.exit`) removes them on its way out. One a kill leaves goes with the next sweep.
 */
const liveSpares = new Set<SpareFile>();
let exitHook = false;

/** Counts `spare` among {@link liveSpares}. */
function keepSpare(spare: SpareFile): void {
  liveSpares.add(spare);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const left of liveSpares) dropSpare(left);
  });
}

/**
 * Closes and removes a spare nobody wrote into. A failure leaves an empty temp file, which the
 * sweeps take once this process is gone.
 */
function dropSpare(spare: SpareFile): void {
  liveSpares.delete(spare);
  try {
    fs.closeSync(spare.fd);
    removeFile(spare.temp);
  } catch {
    // Left to the sweeps.
  }
}

/** Removes a staged file; its descriptor is closed once its fsync has ended (never under it). */
function discardStaged(ready: StagedBlob): void {
  removeFile(ready.temp);
  closeWhenSynced(ready);
}

/** Closes a written file's descriptor, after its fsync when one was started. */
function closeWhenSynced(file: { fd: number; synced?: Promise<unknown> }): void {
  if (file.synced === undefined) fs.closeSync(file.fd);
  else void file.synced.then(() => fs.closeSync(file.fd));
}

/** The label of a staged blob file's temp name (`.blob.<pid>.<stamp>.<n>.tmp` in `sha256/`). */
const STAGED_LABEL = "blob";

/**
 * A spare older than this is not written into (removed, and a file made at once instead): a
 * `storage compact` takes a live process's temp file an hour old for one a reused pid left.
 */
const SPARE_MAX_AGE_MS = 30 * 60 * 1000;

/** An empty staged file made ahead of the blob it will hold, open for writing. */
interface SpareFile {
  temp: string;
  fd: number;
  made: number;
}

/** One home's blob store; cheap to make (holds paths only and the blobs not yet fsynced). */
export class BlobStore {
  /** `<home>/blobs`. */
  readonly root: string;
  private readonly dir: string;
  /** Blobs written without fsync (an import's), fsynced by {@link flush} before its logs are. */
  private readonly unsynced = new Set<string>();
  /** Parents of the folders made for {@link unsynced} blobs (each a new entry of its parent). */
  private readonly unsyncedFolders = new Set<string>();
  /** {@link makeShardsAhead}'s state: not started, running, done (all 256 there, fsynced), failed. */
  private shards: "making" | "ready" | "failed" | undefined;
  private shardsMade: Promise<void> = Promise.resolve();
  /** Staged files (see {@link stage}) that killed writers left in `sha256/`. */
  private readonly leftovers: LeftoverTemps;
  /** Writers of this process that stage blobs here (see {@link holdSpare}). */
  private spareHolders = 0;
  /** Set by the first blob staged here: from then on open writers keep a spare. */
  private stagesBlobs = false;
  /** The next blob's staged file, made ahead on the thread pool (see {@link stage}). */
  private spare: SpareFile | undefined;
  /** The spare being made, if one is. */
  private spareMaking: Promise<void> | undefined;
  /** Resolves once the spare asked for by the last {@link stage} is being made (or refused). */
  private spareQueued: Promise<void> = Promise.resolve();

  constructor(home: string) {
    this.root = join(home, "blobs");
    this.dir = join(this.root, "sha256");
    this.leftovers = new LeftoverTemps(this.dir, (label) => label === STAGED_LABEL);
  }

  /** The compressed file of blob `hash` (`<62 hex>.zst`). */
  pathOf(hash: string): string {
    return `${this.rawPathOf(hash)}${CODEC_SUFFIX}`;
  }

  /**
   * The uncompressed file of blob `hash` (`<62 hex>`, no codec suffix: its bytes hash to its
   * name). Writers store a blob this way (no compression on the append path); `compact` turns it
   * into {@link pathOf}'s form.
   */
  rawPathOf(hash: string): string {
    if (!hashPattern.test(hash)) throw new InvalidBlobHashError(hash);
    return join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Whether blob `hash` is stored, in either form. */
  has(hash: string): boolean {
    return (
      fileStats(this.pathOf(hash)) !== undefined || fileStats(this.rawPathOf(hash)) !== undefined
    );
  }

  /** Bytes on disk of blob `hash` (its compressed form when it has one), 0 when absent. */
  storedBytes(hash: string): number {
    const stat = fileStats(this.pathOf(hash)) ?? fileStats(this.rawPathOf(hash));
    return stat === undefined ? 0 : Number(stat.size);
  }

  /**
   * Stores `data` under its sha256 and returns the hash; a blob already there (in either form) is
   * kept (same name, same bytes). The file appears whole or not at all (temp file + rename).
   * `durable` (default): the file and its folder are fsynced before this returns; otherwise
   * {@link flush} does it later (an import's logs are fsynced in batches). `compressed`: stored
   * as its zstd frame (`compact`: a delta against an earlier blob when `plan`'s planner finds
   * one, always durable), else as is (a writer's: no compression on the append path).
   */
  put(
    data: Uint8Array,
    hash = sha256Hex(data),
    options: { durable?: boolean; compressed?: boolean; plan?: CompressPlan } = {},
  ): string {
    if (this.storedWhole(hash, data.length)) return hash;
    if (options.compressed === true) {
      const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      this.placeCompressed(hash, this.frameOf(hash, bytes, options.plan));
      options.plan?.planner.stored(hash, options.plan.mediaType, bytes);
      return hash;
    }
    const durable = options.durable !== false;
    const path = this.rawPathOf(hash);
    this.guard(path, () => {
      // A folder made here is a new entry of its parent: fsynced with the blob's own folder.
      const parents = this.shardFolder(dirname(path));
      const temp = tempPathIn(dirname(path), "blob");
      writeTemp(temp, data, durable);
      fs.renameSync(temp, path);
      if (durable) for (const folder of [dirname(path), ...parents]) fsyncDirectory(folder);
      else for (const folder of parents) this.unsyncedFolders.add(folder);
    });
    if (!durable) this.unsynced.add(path);
    return hash;
  }

  /**
   * Starts making the 256 shard folders (`sha256/00` … `sha256/ff`) ahead of any blob, in the
   * background (on the thread pool), then fsyncs the folders that name them (`sha256`, `blobs`,
   * the home; at once), so that a blob's write later makes no folder and fsyncs no parent (in a
   * young home that was 0.16–1.3 ms of a 1 MB output's append; made inline at a writer's open
   * the 256 `mkdir`s took ~100 ms loaded). Once per store; a writer's open calls it. Folders found
   * all there are taken as made, as a blob write takes a folder it finds. While it runs (or after
   * it failed), a blob write fsyncs its shard's parents up to the home as well: a folder it finds
   * may be one made here, not yet fsynced. A crash part way leaves empty folders, which every
   * reader skips and the next call completes. The same listing removes the staged files
   * ({@link stage}) of writers that were killed. Resolves when done; never rejects.
   */
  makeShardsAhead(): Promise<void> {
    if (this.shards === undefined) {
      this.shards = "making";
      this.shardsMade = this.makeShards().then(
        () => {
          this.shards = "ready";
        },
        () => {
          this.shards = "failed";
        },
      );
    }
    return this.shardsMade;
  }

  /** Resolves once {@link makeShardsAhead}'s run (if any) has ended; never rejects. */
  shardsSettled(): Promise<void> {
    return this.shardsMade;
  }

  private async makeShards(): Promise<void> {
    let present: Set<string>;
    try {
      present = new Set(await fs.promises.readdir(this.dir));
    } catch (error) {
      if (!hasErrorCode(error, "ENOENT")) throw error;
      present = new Set();
    }
    // The listing is made anyway: staged files of dead writers go with it (a kill between a
    // blob's staging and its rename leaves one, up to the payload's size, until the next sweep).
    await this.leftovers.sweep([...present]);
    const missing = SHARDS.filter((shard) => !present.has(shard));
    if (missing.length === 0) return;
    makeFolders(this.dir, this.root);
    // One at a time: 256 at once filled the thread pool, and the writer's own open waited behind
    // them (its first open in a new home took 32 ms, loaded, against 1.7 ms).
    for (const shard of missing) {
      await fs.promises.mkdir(join(this.dir, shard), { mode: 0o700 }).catch((error: unknown) => {
        if (!hasErrorCode(error, "EEXIST")) throw error;
      });
    }
    await Promise.all([this.dir, this.root, dirname(this.root)].map(fsyncDirectoryAsync));
  }

  /**
   * Makes shard folder `folder` if it is missing; returns the folders besides it whose fsync
   * makes a blob's name in it durable: the parent of each folder made here, and while the shard
   * folders are being made ahead (or that failed part way), every folder up to the home.
   */
  private shardFolder(folder: string): string[] {
    const parents = makeFolders(folder, this.root).map((made) => dirname(made));
    if (this.shards === "making" || this.shards === "failed") {
      parents.push(dirname(folder), this.root, dirname(this.root));
    }
    return [...new Set(parents)];
  }

  /** The compressed file for blob `hash` of `data`: `plan`'s choice, else a plain frame. */
  private frameOf(hash: string, data: Buffer, plan: CompressPlan | undefined): Buffer {
    return plan === undefined
      ? compressBytesAt(data, BLOB_LEVEL)
      : plan.planner.frameFor(hash, data, plan.mediaType);
  }

  /**
   * Puts `bytes` in place as blob `hash`'s compressed file, for good (temp, fsync, link, folder
   * fsync, and the parent of any folder made). Never replaces one already there (another
   * compact's): a blob another delta names as its base must stay a plain frame, so the first
   * form in place is kept.
   */
  private placeCompressed(hash: string, bytes: Uint8Array): void {
    const packed = this.pathOf(hash);
    this.guard(packed, () => {
      const parents = this.shardFolder(dirname(packed));
      const temp = tempPathIn(dirname(packed), "blob");
      writeTemp(temp, bytes, true);
      try {
        fs.linkSync(temp, packed);
      } catch (error) {
        if (!hasErrorCode(error, "EEXIST")) {
          removeFile(temp);
          throw error;
        }
      }
      removeFile(temp);
      for (const folder of [dirname(packed), ...parents]) fsyncDirectory(folder);
    });
  }

  /**
   * Whether blob `hash`'s compressed file is a delta (`undefined`: it has none). Reads its first
   * bytes only.
   */
  isDelta(hash: string): boolean | undefined {
    const base = this.baseRecord(hash);
    return base === null ? undefined : base !== undefined;
  }

  /** The base blob `hash`'s compressed file names, if it is a delta (reclaim keeps it). */
  baseOf(hash: string): string | undefined {
    const base = this.baseRecord(hash);
    return base === null ? undefined : base;
  }

  /** `null`: no compressed file; `undefined`: a plain frame (or unreadable); else the base. */
  private baseRecord(hash: string): string | undefined | null {
    let fd: number;
    try {
      fd = fs.openSync(this.pathOf(hash), "r");
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return null;
      throw error;
    }
    try {
      const head = Buffer.alloc(DELTA_HEADER_BYTES);
      const read = fs.readSync(fd, head, 0, head.length, 0);
      const named = baseNamedBy(head.subarray(0, read));
      return named !== undefined && "base" in named ? named.base : undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Whether blob `hash` of `bytes` payload bytes is stored whole: compressed (`compact` writes that
   * form durable and checked before its name), or raw at its full size with bytes that hash to its
   * name. A raw file a power cut left before a writer's fsync (short, empty, other bytes of the
   * same size) is written again.
   */
  private storedWhole(hash: string, bytes: number): boolean {
    if (this.refresh(this.pathOf(hash))) return true;
    const raw = fileStats(this.rawPathOf(hash));
    if (raw === undefined || Number(raw.size) !== bytes) return false;
    const data = this.readForm(this.rawPathOf(hash), hash);
    return data !== undefined && sha256Hex(data) === hash && this.refresh(this.rawPathOf(hash));
  }

  /**
   * Makes blob file `path` young again, for a write that reuses it and is about to name it: the
   * sweep keeps a blob no log names for an hour, so an old unreferenced one (its session's trash
   * emptied) is not removed before the new line or log naming it is on disk. `false`: no file.
   */
  private refresh(path: string): boolean {
    // A `stat` first: the common case is no file, and a failed `utimes` costs an exception
    // (medians 38–48 µs against 1.2–2.9 µs for the `stat`; loaded, 2 runs of 5×20,000).
    if (fileStats(path) === undefined) return false;
    const now = new Date();
    try {
      fs.utimesSync(path, now, now);
      return true;
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return false;
      throw faultWriting(error, path, dirname(this.root));
    }
  }

  /**
   * Writes every blob in `blobs` (hash → bytes) raw and without fsync: a temp file, renamed into
   * place (a reader or another writer never sees a partial blob under its name). A raw file
   * already there is written again, not trusted: it may be another writer's, not fsynced yet, or
   * what a power cut left of one (short, empty, other bytes of the same size), and checking it
   * costs about what writing it does. Only a compressed one (`compact`'s, durable and checked) is
   * kept. Returns what {@link syncAll} must fsync before a line naming one of them is
   * acknowledged: the files (their descriptors, left open), their folders, and the parent of
   * each folder made here (a new folder's own entry). A line naming a blob whose fsync a crash
   * cut off was never acknowledged: replay treats it as an unfinished write
   * (`unfinished-blob-write.ts`, architecture/storage.md). A payload `staged` holds (by its
   * bytes, see {@link stage}) is renamed into place instead of written, and leaves `staged`;
   * what is left there the caller {@link discard}s.
   */
  writeAll(blobs: ReadonlyMap<string, Uint8Array>, staged?: StagedBlobs): BlobSyncs {
    const syncs: BlobSyncs = { files: [], folders: new Set() };
    try {
      for (const [hash, data] of blobs) {
        // A staged copy stays in `staged` until it is renamed into place: the caller discards
        // what is left there, whatever failed.
        const ready = staged?.get(data);
        if (this.refresh(this.pathOf(hash))) continue; // compact's form: durable
        const path = this.rawPathOf(hash);
        const folder = dirname(path);
        syncs.folders.add(folder);
        this.guard(path, () => {
          for (const parent of this.shardFolder(folder)) syncs.folders.add(parent);
          if (ready !== undefined) {
            staged?.delete(data);
            try {
              fs.renameSync(ready.temp, path);
              syncs.files.push(
                ready.synced === undefined
                  ? { path, fd: ready.fd }
                  : { path, fd: ready.fd, synced: ready.synced },
              );
              return;
            } catch (error) {
              discardStaged(ready);
              // Removed meanwhile (by hand, or a sweep that took it for a dead process's): the
              // blob is written afresh below.
              if (!hasErrorCode(error, "ENOENT")) throw error;
            }
          }
          const temp = tempPathIn(folder, "blob");
          // Kept open: fsynced through it (opening the file again took two more thread-pool hops).
          const fd = writeTemp(temp, data, false, true) as number;
          try {
            fs.renameSync(temp, path);
          } catch (error) {
            fs.closeSync(fd);
            removeFile(temp);
            throw error;
          }
          syncs.files.push({ path, fd });
        });
      }
    } catch (error) {
      for (const file of syncs.files) closeWhenSynced(file);
      throw error;
    }
    return syncs;
  }

  /**
   * Writes `data` to a temp file in the store's folder and, with `startSync`, starts its fsync
   * (else {@link syncAll} does, with the log's): what {@link writeAll} renames into place once
   * the hash is known. The file is the spare made ahead when there is one ({@link holdSpare};
   * the store's first blob has none), and the next spare is started: creating a file waits for
   * the file system's journal (0.4–0.9 ms here while a turn's fsyncs run, a third of a 1 MB
   * blob's append), and the pool's threads wait for it instead, between tool calls. `undefined`
   * when the folder is not there yet (a new home: `writeAll` makes it and writes the blob as
   * before).
   */
  stage(data: Uint8Array, startSync = true): StagedBlob | undefined {
    this.stagesBlobs = true;
    const spare = this.takeSpare();
    const temp = spare?.temp ?? tempPathIn(this.dir, STAGED_LABEL);
    let fd: number;
    try {
      if (spare === undefined) {
        fd = writeTemp(temp, data, false, true) as number;
      } else {
        fd = spare.fd;
        try {
          writeBytes(fd, data);
        } catch (error) {
          fs.closeSync(fd);
          removeFile(temp);
          throw error;
        }
      }
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return undefined;
      throw faultWriting(error, temp, dirname(this.root));
    } finally {
      // Once the append has written its lines: asking the pool for a thread took 0.09 ms here.
      this.spareQueued = new Promise((resolve) =>
        setImmediate(() => {
          this.makeSpare();
          resolve();
        }),
      );
    }
    if (!startSync) return { temp, fd };
    const synced = fsyncAsync(fd).then(
      () => undefined,
      (error: unknown) => error ?? new Error("blob fsync failed"),
    );
    return { temp, fd, synced };
  }

  /**
   * A writer that may stage blobs opened: from now until the last such writer of this process
   * calls {@link releaseSpare}, once a blob has been staged here, an empty staged file is kept
   * ready in the store's folder (made on the thread pool once the shard folders are there). A
   * store that never stages a blob (most sessions hold no payload over the threshold) makes none:
   * making and removing one added 0.15–0.45 ms to a writer's open and close. One a killed
   * process left goes with the next writer's sweep, like any staged file.
   */
  holdSpare(): void {
    this.spareHolders += 1;
    void this.shardsMade.then(() => this.makeSpare());
  }

  /** The last writer holding the spare closed: it is removed (resolves when it is). */
  async releaseSpare(): Promise<void> {
    this.spareHolders = Math.max(0, this.spareHolders - 1);
    if (this.spareHolders > 0) return;
    await this.spareMaking;
    const spare = this.spare;
    this.spare = undefined;
    if (spare !== undefined) dropSpare(spare);
  }

  /** The spare's path once the one being made (if any) is ready (tests tell it from a leftover). */
  async spareFile(): Promise<string | undefined> {
    await this.shardsMade;
    await this.spareQueued;
    await this.spareMaking;
    return this.spare?.temp;
  }

  /** The ready spare, if any and young enough; an old one is removed. */
  private takeSpare(): SpareFile | undefined {
    const spare = this.spare;
    this.spare = undefined;
    if (spare === undefined) return undefined;
    if (Date.now() - spare.made < SPARE_MAX_AGE_MS) {
      // A staged file from now on: the append renames it into place or discards it.
      liveSpares.delete(spare);
      return spare;
    }
    dropSpare(spare);
    return undefined;
  }

  /**
   * Starts making a spare on the thread pool, unless one is ready or being made or no writer
   * holds one. A failure is left for the next blob's own file to meet (and report).
   */
  private makeSpare(): void {
    if (
      !this.stagesBlobs ||
      this.spareHolders === 0 ||
      this.spare !== undefined ||
      this.spareMaking !== undefined
    ) {
      return;
    }
    const temp = tempPathIn(this.dir, STAGED_LABEL);
    this.spareMaking = new Promise((resolve) => {
      fs.open(temp, "wx", 0o600, (error, fd) => {
        this.spareMaking = undefined;
        if (error === null) {
          const spare = { temp, fd, made: Date.now() };
          keepSpare(spare);
          // Released meanwhile: nobody will take it.
          if (this.spareHolders === 0) dropSpare(spare);
          else this.spare = spare;
        }
        resolve();
      });
    });
  }

  /** Removes staged files {@link writeAll} did not take (a batch that failed, or a repeated payload). */
  discard(staged: StagedBlobs): void {
    for (const ready of staged.values()) discardStaged(ready);
    staged.clear();
  }

  /**
   * Fsyncs what {@link writeAll} wrote, and closes its descriptors: every file and every folder
   * at once on the thread pool (one journal commit carries them; ordered one after another they
   * took two). A file compressed meanwhile by a compact is fsynced all the same through its
   * descriptor (harmless: its `.zst` was fsynced before the raw file went, and the folder fsync
   * covers the rename).
   */
  async syncAll(syncs: BlobSyncs): Promise<void> {
    await Promise.all([
      ...syncs.files.map(({ path, fd, synced }) =>
        this.guardAsync(path, async () => {
          if (synced === undefined) return fsyncAndClose(fd);
          const failed = await synced;
          fs.closeSync(fd);
          if (failed !== undefined) throw failed;
        }),
      ),
      ...[...syncs.folders].map((folder) =>
        this.guardAsync(folder, () => fsyncDirectoryAsync(folder)),
      ),
    ]);
  }

  /**
   * Replaces the uncompressed form of blob `hash` by its compressed one (`compact`): the `.zst`
   * is written whole (temp, fsync, rename, folder fsync) and checked before the raw file goes.
   * A crash leaves the raw file, or both (readers take the `.zst`). Returns the bytes before and
   * after; nothing to do (already compressed, or absent) is `undefined`.
   *
   * @throws {@link BlobReadError} when the raw file does not hash to its name (left as it is).
   */
  compress(hash: string, plan?: CompressPlan): { before: number; after: number } | undefined {
    const raw = this.rawPathOf(hash);
    const packed = this.pathOf(hash);
    let data: Buffer;
    try {
      data = fs.readFileSync(raw);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) {
        // Already compressed (by an earlier compact): a plain frame may serve as a base.
        if (this.refresh(packed) && plan !== undefined) plan.planner.stored(hash, plan.mediaType);
        return undefined;
      }
      throw error;
    }
    if (!this.refresh(packed)) {
      if (sha256Hex(data) !== hash) {
        throw new BlobReadError(
          "BLOB_CORRUPT",
          hash,
          `blob ${hash} is damaged (its bytes hash to another name)`,
        );
      }
      this.placeCompressed(hash, this.frameOf(hash, data, plan));
    }
    plan?.planner.stored(hash, plan.mediaType, data);
    removeFile(raw);
    fsyncDirectory(dirname(raw));
    return { before: data.length, after: Number(fileStats(packed)?.size ?? 0) };
  }

  /** Fsyncs the blobs written without fsync since the last call, and their folders. */
  flush(): void {
    if (this.unsynced.size === 0) return;
    const folders = new Set<string>(this.unsyncedFolders);
    for (const path of this.unsynced) {
      let fd: number;
      try {
        fd = fs.openSync(path, "r");
      } catch (error) {
        // Compressed meanwhile by a compact (whose `.zst` was fsynced before the raw file went).
        if (hasErrorCode(error, "ENOENT")) continue;
        throw error;
      }
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      folders.add(dirname(path));
    }
    for (const folder of folders) fsyncDirectory(folder);
    this.unsynced.clear();
    this.unsyncedFolders.clear();
  }

  /** Runs a write of blob file `path`; a full disk is one sentence naming the blob, as for a log. */
  private guard(path: string, write: () => void): void {
    try {
      write();
    } catch (error) {
      throw faultWriting(error, path, dirname(this.root));
    }
  }

  private async guardAsync(path: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      throw faultWriting(error, path, dirname(this.root));
    }
  }

  /**
   * The exact bytes of blob `hash`, checked against it.
   *
   * @throws {@link BlobReadError} `BLOB_MISSING` or `BLOB_CORRUPT` (a file that does not decompress, or
   *   whose bytes hash to another name, or hold more than `maxBytes`).
   */
  get(hash: string, maxBytes = Number.POSITIVE_INFINITY): Buffer {
    // Compressed first, then raw, then compressed again: a compact may turn one into the other
    // between the two reads (the `.zst` is in place before the raw file goes).
    let compressed = true;
    let data = this.readForm(this.pathOf(hash), hash, maxBytes);
    if (data === undefined) {
      data = this.readForm(this.rawPathOf(hash), hash, maxBytes);
      compressed = data === undefined;
    }
    data ??= this.readForm(this.pathOf(hash), hash, maxBytes);
    if (data === undefined) {
      throw new BlobReadError(
        "BLOB_MISSING",
        hash,
        `blob ${hash} is missing (blobs/sha256/${hash.slice(0, 2)}/…)`,
      );
    }
    if (sha256Hex(data) !== hash) {
      throw new BlobReadError(
        "BLOB_CORRUPT",
        hash,
        `blob ${hash} is damaged (its bytes hash to another name)`,
        compressed,
      );
    }
    return data;
  }

  /**
   * The payload bytes in file `path` (decompressed when it is a `.zst`), `undefined` if absent;
   * more than `maxBytes` (a compressed frame's declared size, checked before it is allocated) is
   * damage.
   */
  private readForm(
    path: string,
    hash: string,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Buffer | undefined {
    let stored: Buffer;
    try {
      stored = fs.readFileSync(path);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return undefined;
      throw error;
    }
    const compressed = path.endsWith(CODEC_SUFFIX);
    if (maxBytes !== Number.POSITIVE_INFINITY) {
      const declared = compressed ? frameContentSize(stored) : stored.length;
      if (declared === undefined || declared > maxBytes) {
        throw new BlobReadError(
          "BLOB_CORRUPT",
          hash,
          `blob ${hash} is damaged (it declares no size or more than ${maxBytes} bytes)`,
          compressed,
        );
      }
    }
    if (!compressed) return stored;
    const named = baseNamedBy(stored);
    if (named !== undefined) return this.readDelta(stored, hash, named);
    try {
      return decompressBytes(stored);
    } catch {
      throw new BlobReadError(
        "BLOB_CORRUPT",
        hash,
        `blob ${hash} is damaged (not a zstd frame)`,
        true,
      );
    }
  }

  /**
   * The payload of delta file `stored` of blob `hash`: its base is read (a plain frame or raw,
   * its hash checked), then the frame is decompressed against it (the caller checks `hash`).
   */
  private readDelta(
    stored: Buffer,
    hash: string,
    named: { base: string } | { damaged: true },
  ): Buffer {
    if ("damaged" in named) {
      throw new BlobReadError(
        "BLOB_CORRUPT",
        hash,
        `blob ${hash} is damaged (its header names no base blob)`,
        true,
      );
    }
    const { base } = named;
    // The planner never makes a delta larger than this: a frame declaring more (or no size) is
    // damage, refused before its size is allocated or its base read.
    const declared = frameContentSize(stored.subarray(DELTA_HEADER_BYTES));
    if (declared === undefined || declared > DELTA_MAX_BYTES) {
      throw new BlobReadError(
        "BLOB_CORRUPT",
        hash,
        `blob ${hash} is damaged (its delta frame declares no size or more than ${DELTA_MAX_BYTES} bytes, the most a delta holds)`,
        true,
      );
    }
    let baseBytes: Buffer;
    try {
      if (this.isDelta(base) === true) {
        throw new BlobReadError(
          "BLOB_CORRUPT",
          base,
          `blob ${base} is damaged (a delta, where a base must be a plain frame)`,
          true,
        );
      }
      // A base is at most what the planner takes as one: a larger one is damage, not allocated.
      baseBytes = this.get(base, DELTA_MAX_BYTES);
    } catch (error) {
      if (!BlobReadError.isInstance(error)) throw error;
      throw new BlobReadError(
        error.code,
        hash,
        `blob ${hash}, a delta against blob ${base}, which ${error.message.replace(`blob ${base} `, "")}`,
        true,
      );
    }
    try {
      return unpackDelta(stored, baseBytes);
    } catch {
      throw new BlobReadError(
        "BLOB_CORRUPT",
        hash,
        `blob ${hash} is damaged (its delta against blob ${base} does not decompress)`,
        true,
      );
    }
  }

  /**
   * Every blob file on disk with its stored size: temp files left by a crash as `temp`, and
   * `raw` for the uncompressed form (a blob may briefly have both forms after a crash).
   */
  list(): StoredBlob[] {
    const found: StoredBlob[] = [];
    let prefixes: string[];
    try {
      prefixes = fs.readdirSync(this.dir);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return found;
      throw error;
    }
    for (const prefix of prefixes) {
      if (prefix.startsWith(".") && prefix.endsWith(".tmp")) {
        // A staged blob file (see `stage`) a killed writer left.
        const path = join(this.dir, prefix);
        const stat = fileStats(path);
        if (stat?.isFile())
          found.push({ hash: "", path, bytes: Number(stat.size), temp: true, raw: false });
        continue;
      }
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      const folder = join(this.dir, prefix);
      for (const name of fs.readdirSync(folder)) {
        const path = join(folder, name);
        const stat = fileStats(path);
        if (stat === undefined || !stat.isFile()) continue;
        const temp = name.startsWith(".") && name.endsWith(".tmp");
        const raw = !name.endsWith(CODEC_SUFFIX);
        const hash = `${prefix}${raw ? name : name.slice(0, -CODEC_SUFFIX.length)}`;
        if (!temp && !hashPattern.test(hash)) continue;
        found.push({
          hash: temp ? "" : hash,
          path,
          bytes: Number(stat.size),
          temp,
          raw: !temp && raw,
        });
      }
    }
    return found;
  }

  /** Removes blob file `path` (as {@link list} named it). */
  remove(path: string): void {
    removeFile(path);
  }

  /**
   * Removes blob file `path`, which the sweep judged unreferenced and older than `ageMs`, unless
   * a writer made it young since: one that reuses the blob {@link refresh}es it and then writes
   * the line naming it, and that can fall between the sweep's judging and its removal. So the
   * file is first renamed aside (a `refresh` after that finds no file, and the writer writes the
   * blob again), then judged again by its mtime: young, it goes back under its name (never over
   * a newer copy) and its folder is fsynced. Returns whether it was removed.
   */
  removeUnlessYoung(path: string, ageMs: number): boolean {
    const aside = tempPathIn(dirname(path), `${SWEPT}${basename(path)}`);
    try {
      fs.renameSync(path, aside);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return false;
      throw error;
    }
    const stat = fileStats(aside);
    if (stat !== undefined && Date.now() - Number(stat.mtimeMs) < ageMs) {
      this.putBack(aside, path);
      return false;
    }
    removeFile(aside);
    return true;
  }

  /**
   * Puts back under their names the blob files that a sweep killed between setting them aside
   * and judging them again left (its process gone): a writer may have named one since. The next
   * sweep judges them as any other. Returns how many it found.
   */
  restoreSetAside(found: readonly StoredBlob[]): number {
    let restored = 0;
    for (const blob of found) {
      const temp = blob.temp ? parseTempName(basename(blob.path)) : undefined;
      if (temp === undefined || !temp.label.startsWith(SWEPT) || processAlive(temp.pid)) continue;
      const name = temp.label.slice(SWEPT.length);
      if (!/^[0-9a-f]{62}(?:\.zst)?$/.test(name)) continue;
      this.putBack(blob.path, join(dirname(blob.path), name));
      restored += 1;
    }
    return restored;
  }

  /** Moves set-aside file `aside` back to `path` unless a copy is there now, for good. */
  private putBack(aside: string, path: string): void {
    try {
      fs.linkSync(aside, path);
    } catch (error) {
      if (!hasErrorCode(error, "EEXIST")) throw error;
    }
    removeFile(aside);
    fsyncDirectory(dirname(path));
  }
}
