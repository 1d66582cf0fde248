/**
 * How large a `.zst` source may become, known before it is decompressed: `fzstd` decompresses a
 * whole file in memory, and a few kilobytes of zstd can stand for gigabytes (92 KB of zeros made
 * 3 GB and 6 GB of memory before the importer saw its one line; a little more and Node died).
 */
import { TapedeckError } from "@tapedeck/session";

/** Decompressed sources larger than this are not read (1 GiB; a real rollout is megabytes). */
export const MAX_DECOMPRESSED_BYTES = 1024 ** 3;

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames: magic `0x184D2A50`–`0x184D2A5F`, then their size. */
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
/** A block regenerates at most this much (RFC 8878, Block_Maximum_Size). */
const BLOCK_MAX_BYTES = 128 * 1024;
const DICTIONARY_ID_BYTES = [0, 1, 2, 4] as const;
const CONTENT_SIZE_BYTES = [0, 2, 4, 8] as const;

/**
 * An upper bound of what `bytes` decompress to, from the frame and block headers alone (raw and
 * RLE blocks give their size, a compressed block at most {@link BLOCK_MAX_BYTES}), in one pass
 * over the headers; `undefined` when they do not parse (decompression then reports it).
 */
export function zstdSizeBound(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let position = 0;
  let bound = 0;
  while (position < bytes.length) {
    if (position + 8 > bytes.length) return undefined;
    const magic = view.getUint32(position, true);
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      position += 8 + view.getUint32(position + 4, true);
      continue;
    }
    if (magic !== ZSTD_MAGIC) return undefined;
    const descriptor = bytes[position + 4]!;
    const singleSegment = (descriptor >> 5) & 1;
    const contentSizeFlag = descriptor >> 6;
    position += 5 + (singleSegment ? 0 : 1) + DICTIONARY_ID_BYTES[descriptor & 3]!;
    position +=
      contentSizeFlag === 0 ? singleSegment : CONTENT_SIZE_BYTES[contentSizeFlag as 1 | 2 | 3];
    for (let last = 0; last === 0; ) {
      if (position + 3 > bytes.length) return undefined;
      const header = bytes[position]! | (bytes[position + 1]! << 8) | (bytes[position + 2]! << 16);
      last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      position += 3;
      if (type === 0) bound += size;
      else if (type === 1) bound += size;
      else if (type === 2) bound += BLOCK_MAX_BYTES;
      else return undefined;
      position += type === 1 ? 1 : size;
      if (position > bytes.length) return undefined;
    }
    // Content_Checksum.
    if ((descriptor >> 2) & 1) position += 4;
  }
  return bound;
}

const marker = "tapedeck.error.SourceTooLargeError";
const symbol = Symbol.for(marker);

/** A compressed source that would decompress past {@link MAX_DECOMPRESSED_BYTES}: not read. */
export class SourceTooLargeError extends TapedeckError {
  readonly [symbol] = true;

  constructor(
    readonly path: string,
    readonly bound: number,
  ) {
    super(
      "IMPORT_SOURCE_TOO_LARGE",
      `decompresses to up to ${Math.ceil(bound / 1024 ** 2)} MiB, more than the ${MAX_DECOMPRESSED_BYTES / 1024 ** 2} MiB a source may hold`,
    );
    this.name = "SourceTooLargeError";
  }

  /** True for a `SourceTooLargeError` from any copy of this package. */
  static override isInstance(error: unknown): error is SourceTooLargeError {
    return TapedeckError.hasMarker(error, marker);
  }
}
