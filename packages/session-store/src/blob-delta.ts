/**
 * Delta blobs: `compact` may store a blob as one zstd frame compressed against an earlier blob of
 * the same session and media type (its *base*, used as a raw-content dictionary, as git packs a
 * delta against a similar object). Agents re-run the same builds and tests, so consecutive outputs
 * share most of their lines; each compressed alone, every copy pays for them again.
 *
 * File format (`<62 hex>.zst`, the same name as a plain compressed blob):
 * - a zstd skippable frame: magic `0x184D2A5D` (LE), length 76 (LE u32), then the ASCII
 *   `base sha256:<64 hex>`: the base it needs;
 * - one zstd frame of the payload compressed with the base's bytes as a raw-content dictionary
 *   (`zstd -d -D <base's bytes> <file>` reads it).
 *
 * Chain depth 1: a base is itself stored without a base, so reading a blob reads at most two
 * files. A compressed blob file is never replaced once in place (a base stays what it was), and
 * the unreferenced-blob sweep keeps every base a kept blob names. Decisions and measurements:
 * architecture/storage.md, "Delta blobs".
 */
import { type BaseCompressor, compressBytesAt, compressorAgainst, decompressAgainst } from "./zstd";

/** zstd level of the frames `compact` writes for blobs (measured: architecture/storage.md). */
export const BLOB_LEVEL = 4;
/** Blobs (and bases) larger than this are never deltas: both are held in memory to compress or read one. */
export const DELTA_MAX_BYTES = 8 * 1024 * 1024;
/** A base smaller than this is not worth a second file read. */
const DELTA_MIN_BYTES = 1024;
/** The recent bases of a media type tried for each blob (the best one is kept). */
const DELTA_CANDIDATES = 3;
/** A delta is kept only when it is at most this fraction of the blob compressed alone. */
const DELTA_KEEP = 0.8;

const SKIPPABLE_MAGIC = 0x184d2a5d;
const BASE_PREFIX = "base sha256:";
const HEADER_CONTENT = BASE_PREFIX.length + 64;
/** Bytes of the skippable frame that names the base. */
export const DELTA_HEADER_BYTES = 8 + HEADER_CONTENT;

/**
 * What a blob is compared with: its media type, narrowed for a text payload that is a base64
 * `data:` URL (a screenshot inside a tool output) to that URL's type, so build logs are not tried
 * against images nor images against build logs.
 */
function kindOf(mediaType: string, data: Buffer | undefined): string {
  if (data === undefined || data[0] !== 0x64 || !data.subarray(0, 5).equals(DATA_URL)) {
    return mediaType;
  }
  const end = data.subarray(0, 128).indexOf(";base64,");
  return end === -1 ? mediaType : `${mediaType} ${data.toString("latin1", 0, end)}`;
}
const DATA_URL = Buffer.from("data:");

/** The skippable frame naming `baseHash`. */
function deltaHeader(baseHash: string): Buffer {
  const header = Buffer.alloc(DELTA_HEADER_BYTES);
  header.writeUInt32LE(SKIPPABLE_MAGIC, 0);
  header.writeUInt32LE(HEADER_CONTENT, 4);
  header.write(`${BASE_PREFIX}${baseHash}`, 8, "latin1");
  return header;
}

/**
 * What the start of a compressed blob file says: `{base}` for a delta, `undefined` for a plain
 * frame, `{damaged: true}` for a skippable frame of ours that does not name a base.
 */
export function baseNamedBy(stored: Uint8Array): { base: string } | { damaged: true } | undefined {
  if (stored.length < 8) return undefined;
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  if (view.getUint32(0, true) !== SKIPPABLE_MAGIC) return undefined;
  if (view.getUint32(4, true) !== HEADER_CONTENT || stored.length < DELTA_HEADER_BYTES) {
    return { damaged: true };
  }
  const text = Buffer.from(stored.buffer, stored.byteOffset + 8, HEADER_CONTENT).toString("latin1");
  const base = text.slice(BASE_PREFIX.length);
  if (!text.startsWith(BASE_PREFIX) || !/^[0-9a-f]{64}$/.test(base)) return { damaged: true };
  return { base };
}

/** The payload of delta file `stored` (header and frame) given its base's bytes. */
export function unpackDelta(stored: Uint8Array, base: Uint8Array): Buffer {
  return decompressAgainst(stored.subarray(DELTA_HEADER_BYTES), base);
}

/** A base the planner may try: its bytes once read, its compressor once made (reused: loading a base costs about what compressing it does). */
interface Candidate {
  hash: string;
  data: Buffer | undefined;
  compressor?: BaseCompressor;
}

/** How a {@link DeltaPlanner} reads an earlier blob (hash checked) and tells a delta from a plain frame. */
export interface BaseSource {
  /** The exact bytes of blob `hash`, hash checked; throws when it cannot be read. */
  get(hash: string): Buffer;
  /** Whether blob `hash` is stored compressed as a delta (`undefined`: not compressed). */
  isDelta(hash: string): boolean | undefined;
}

/**
 * Chooses, blob by blob in the order a log names them, between a plain frame and a delta against
 * one of the last {@link DELTA_CANDIDATES} plain-framed blobs of the same media type. One planner
 * per compacted log: the bases are that session's own recent blobs.
 */
export class DeltaPlanner {
  private readonly recent = new Map<string, Candidate[]>();

  constructor(private readonly source: BaseSource) {}

  /**
   * The file to store for blob `hash` of `data` (`mediaType` from its reference): a plain frame,
   * or a delta (checked to decompress to `data`) when one is at most {@link DELTA_KEEP} of it.
   */
  frameFor(hash: string, data: Buffer, mediaType: string | undefined): Buffer {
    const alone = compressBytesAt(data, BLOB_LEVEL);
    if (mediaType === undefined || data.length > DELTA_MAX_BYTES) return alone;
    let best: { bytes: Buffer; base: Buffer } | undefined;
    for (const candidate of [...(this.recent.get(kindOf(mediaType, data)) ?? [])].reverse()) {
      if (candidate.hash === hash) continue;
      const base = this.bytesOf(candidate);
      if (base === undefined) continue;
      let frame: Buffer;
      try {
        candidate.compressor ??= compressorAgainst(base, BLOB_LEVEL);
        frame = candidate.compressor.compress(data);
      } catch {
        continue;
      }
      if (frame.length + DELTA_HEADER_BYTES > alone.length * DELTA_KEEP) continue;
      if (best === undefined || frame.length + DELTA_HEADER_BYTES < best.bytes.length) {
        best = { bytes: Buffer.concat([deltaHeader(candidate.hash), frame]), base };
      }
    }
    if (best === undefined) return alone;
    // A new format on disk: read it back before it replaces the raw file.
    if (!unpackDelta(best.bytes, best.base).equals(data)) return alone;
    return best.bytes;
  }

  /**
   * Records that blob `hash` is stored and how (read back from disk: another compact may have
   * put its own form first; a dry run passes the `file` it would have written); a plain-framed
   * one becomes a candidate base for the next blobs.
   */
  stored(hash: string, mediaType: string | undefined, data?: Buffer, file?: Uint8Array): void {
    if (mediaType === undefined) return;
    // `file`: the form a dry run would have written; else what is on disk now.
    const delta = file === undefined ? this.source.isDelta(hash) : baseNamedBy(file) !== undefined;
    if (delta !== false) return;
    if (data !== undefined && (data.length < DELTA_MIN_BYTES || data.length > DELTA_MAX_BYTES)) {
      return;
    }
    // A blob compressed by an earlier compact is classed by its media type alone (not read now).
    const kind = kindOf(mediaType, data);
    const list = this.recent.get(kind) ?? [];
    if (list.some((candidate) => candidate.hash === hash)) return;
    list.push({ hash, data });
    if (list.length > DELTA_CANDIDATES) list.shift();
    this.recent.set(kind, list);
  }

  /** A candidate's bytes (read on first use when it was already compressed), or `undefined`. */
  private bytesOf(candidate: Candidate): Buffer | undefined {
    if (candidate.data === undefined) {
      try {
        const data = this.source.get(candidate.hash);
        if (data.length < DELTA_MIN_BYTES || data.length > DELTA_MAX_BYTES) return undefined;
        candidate.data = data;
      } catch {
        return undefined;
      }
    }
    return candidate.data;
  }
}
