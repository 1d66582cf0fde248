/**
 * zstd through `zstd-napi` (zstd's own C sources, built by node-gyp at install, N-API so one
 * build serves every Node version). Loaded on first use: commands that never touch a compressed
 * log or a blob do not load the native module. The name is not a literal `require` argument, so
 * a bundler leaves the package external (the binary's `dist/` resolves it from its own
 * dependencies).
 */
import { createRequire } from "node:module";

interface ZstdModule {
  compress(data: Uint8Array, parameters?: { compressionLevel?: number }): Buffer;
  decompress(data: Uint8Array): Buffer;
  Compressor: new () => {
    setParameters(parameters: { compressionLevel: number }): void;
    loadDictionary(data: Uint8Array): void;
    compress(data: Uint8Array): Buffer;
  };
  Decompressor: new () => {
    loadDictionary(data: Uint8Array): void;
    decompress(data: Uint8Array): Buffer;
  };
}

/** A zstd streaming decompression context (`ZSTD_DCtx` through `zstd-napi`'s binding). */
export interface DecompressionContext {
  /**
   * Decompresses what it can of `source` into `target`: `[hint, written, consumed]`, where a
   * `hint` of 0 means a frame ended and is fully flushed. Throws zstd's error name on damage.
   */
  decompressStream(target: Uint8Array, source: Uint8Array): [number, number, number];
  /** Abandons the frame being read (the next call starts a new one). */
  reset(directive: number): void;
}

interface ZstdBinding {
  DCtx: new () => DecompressionContext;
  ResetDirective: { sessionOnly: number };
}

const moduleName = ["zstd", "napi"].join("-");
let loaded: ZstdModule | undefined;
let binding: ZstdBinding | undefined;
// Free contexts for reuse: each holds zstd's window (up to a few MB), freed only by the GC.
const idleContexts: DecompressionContext[] = [];

function zstd(): ZstdModule {
  if (loaded === undefined) {
    const base = typeof import.meta?.url === "string" ? import.meta.url : __filename;
    loaded = createRequire(base)(moduleName) as ZstdModule;
  }
  return loaded;
}

function zstdBinding(): ZstdBinding {
  if (binding === undefined) {
    const base = typeof import.meta?.url === "string" ? import.meta.url : __filename;
    binding = createRequire(base)(`${moduleName}/binding`) as ZstdBinding;
  }
  return binding;
}

/** A decompression context ready for a new frame; give it back with {@link releaseDecompression}. */
export function acquireDecompression(): DecompressionContext {
  return idleContexts.pop() ?? new (zstdBinding().DCtx)();
}

/** Resets `context` and keeps it for the next {@link acquireDecompression} (a few at most). */
export function releaseDecompression(context: DecompressionContext): void {
  resetDecompression(context);
  if (idleContexts.length < 4) idleContexts.push(context);
}

/** Abandons the frame `context` was reading. */
export function resetDecompression(context: DecompressionContext): void {
  context.reset(zstdBinding().ResetDirective.sessionOnly);
}

/** The compression level of logs and blobs (zstd's default: the measured trade-off in architecture/storage.md). */
export const ZSTD_LEVEL = 3;

/** One zstd frame of `data` (its content size in the frame header). */
export function compressBytes(data: Uint8Array): Buffer {
  return zstd().compress(data, { compressionLevel: ZSTD_LEVEL });
}

/** One zstd frame of `data` at compression level `level`. */
export function compressBytesAt(data: Uint8Array, level: number): Buffer {
  return zstd().compress(data, { compressionLevel: level });
}

/** Compresses against one base, its dictionary tables built once for every frame it makes. */
export interface BaseCompressor {
  compress(data: Uint8Array): Buffer;
}

/**
 * A compressor of zstd frames against `base` as a raw-content dictionary (zstd's `--patch-from`:
 * matches may point into `base`), at `level`. Only {@link decompressAgainst} with the same `base`
 * reads its frames back.
 */
export function compressorAgainst(base: Uint8Array, level: number): BaseCompressor {
  const compressor = new (zstd().Compressor)();
  compressor.setParameters({ compressionLevel: level });
  compressor.loadDictionary(base);
  return compressor;
}

/** The bytes of a frame {@link compressAgainst} made with `base` (skippable frames skipped). */
export function decompressAgainst(data: Uint8Array, base: Uint8Array): Buffer {
  const decompressor = new (zstd().Decompressor)();
  decompressor.loadDictionary(base);
  return decompressor.decompress(data);
}

/** The bytes of one or more concatenated zstd frames. */
export function decompressBytes(data: Uint8Array): Buffer {
  return zstd().decompress(data);
}

const MAGIC = 0xfd2fb528;

/**
 * Where the first zstd frame of `data` ends and how many bytes it holds, read from the frame's
 * header and block headers without decompressing; `undefined` when `data` is too short to tell or
 * is not a zstd frame with its content size (what {@link compressBytes} always writes).
 */
export function firstFrame(data: Uint8Array): { end: number; contentSize: number } | undefined {
  if (data.length < 6) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== MAGIC) return undefined;
  const descriptor = data[4] ?? 0;
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3] ?? 0;
  const sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][sizeFlag] ?? 0;
  if (sizeBytes === 0) return undefined;
  let position = 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  if (data.length < position + sizeBytes) return undefined;
  let contentSize: number;
  if (sizeBytes === 1) contentSize = view.getUint8(position);
  else if (sizeBytes === 2) contentSize = view.getUint16(position, true) + 256;
  else if (sizeBytes === 4) contentSize = view.getUint32(position, true);
  else contentSize = Number(view.getBigUint64(position, true));
  position += sizeBytes;
  for (;;) {
    if (data.length < position + 3) return undefined;
    const header =
      (data[position] ?? 0) | ((data[position + 1] ?? 0) << 8) | ((data[position + 2] ?? 0) << 16);
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >> 3;
    position += 3 + (type === 1 ? 1 : size);
    if (last) break;
  }
  position += checksum ? 4 : 0;
  return position <= data.length ? { end: position, contentSize } : undefined;
}

/** The content size in the header of the frame at the start of `data` (no block walk needed). */
export function frameContentSize(data: Uint8Array): number | undefined {
  // firstFrame walks the blocks too; for the size alone a header is enough, so give it a stub
  // block after the header when the data stops there.
  const frame = firstFrame(data);
  if (frame !== undefined) return frame.contentSize;
  const descriptor = data[4];
  if (descriptor === undefined) return undefined;
  const singleSegment = (descriptor >> 5) & 1;
  const sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6] ?? 0;
  const headerEnd = 5 + (singleSegment ? 0 : 1) + ([0, 1, 2, 4][descriptor & 3] ?? 0) + sizeBytes;
  if (data.length < headerEnd) return undefined;
  const stub = Buffer.concat([Buffer.from(data.subarray(0, headerEnd)), Buffer.from([1, 0, 0])]);
  return firstFrame(stub)?.contentSize;
}
