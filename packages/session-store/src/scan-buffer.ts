/**
 * The line encoder's buffer, and the scan that finds what JSON escapes in it: sixteen bytes at a
 * time with WebAssembly SIMD. The scan in JavaScript (four bytes at a time) took ≈ 40 % of the
 * encoder's time, ≈ 9 ms of a 10 MB import.
 */

const PAGE = 64 * 1024;

/** LEB128 of an unsigned 32-bit number (section and body sizes). */
function unsigned(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

const section = (id: number, content: number[]) => [id, ...unsigned(content.length), ...content];
/** `v128.const` of sixteen copies of `byte`. */
const splat = (byte: number) => [0xfd, 0x0c, ...new Array<number>(16).fill(byte)];

/**
 * `scan(from, to)`: the index of the first byte in `[from, to)` that is below 0x20, `"` or `\`,
 * else `to`; on the memory the module imports as `e.m`. In text form:
 *
 * ```wat
 * (func (param $from i32) (param $to i32) (result i32) (local $v v128) (local $b i32)
 *   (block $tail (loop $words                       ;; 16 bytes at a time
 *     (br_if $tail (i32.gt_u (i32.add (local.get $from) (i32.const 16)) (local.get $to)))
 *     (local.set $v (v128.load (local.get $from)))
 *     (br_if $tail (v128.any_true (v128.or (v128.or
 *       (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 …))
 *       (i8x16.eq (local.get $v) (v128.const i8x16 0x22 …)))
 *       (i8x16.eq (local.get $v) (v128.const i8x16 0x5c …)))))
 *     (local.set $from (i32.add (local.get $from) (i32.const 16)))
 *     (br $words)))
 *   (block $found (loop $bytes                      ;; the word that matched, or the tail
 *     (br_if $found (i32.ge_u (local.get $from) (local.get $to)))
 *     (local.set $b (i32.load8_u (local.get $from)))
 *     (br_if $found (i32.or (i32.or (i32.lt_u (local.get $b) (i32.const 0x20))
 *       (i32.eq (local.get $b) (i32.const 0x22))) (i32.eq (local.get $b) (i32.const 0x5c))))
 *     (local.set $from (i32.add (local.get $from) (i32.const 1)))
 *     (br $bytes)))
 *   (local.get $from))
 * ```
 */
function scanModuleBytes(): Uint8Array {
  const body = [
    ...[0x02, 0x01, 0x7b, 0x01, 0x7f], // locals: 1 × v128 ($v = 2), 1 × i32 ($b = 3)
    ...[0x02, 0x40, 0x03, 0x40], // block $tail, loop $words
    ...[0x20, 0x00, 0x41, 0x10, 0x6a, 0x20, 0x01, 0x4b, 0x0d, 0x01], // from + 16 > to: br_if $tail
    ...[0x20, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x22, 0x02], // v128.load from, local.tee $v
    ...splat(0x20),
    ...[0xfd, 0x26, 0x20, 0x02], // i8x16.lt_u, local.get $v
    ...splat(0x22),
    ...[0xfd, 0x23, 0xfd, 0x50, 0x20, 0x02], // i8x16.eq, v128.or, local.get $v
    ...splat(0x5c),
    ...[0xfd, 0x23, 0xfd, 0x50, 0xfd, 0x53, 0x0d, 0x01], // i8x16.eq, v128.or, any_true: br_if $tail
    ...[0x20, 0x00, 0x41, 0x10, 0x6a, 0x21, 0x00, 0x0c, 0x00, 0x0b, 0x0b], // from += 16; br $words
    ...[0x02, 0x40, 0x03, 0x40], // block $found, loop $bytes
    ...[0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01], // from >= to: br_if $found
    ...[0x20, 0x00, 0x2d, 0x00, 0x00, 0x22, 0x03], // i32.load8_u from, local.tee $b
    ...[0x41, 0x20, 0x49, 0x20, 0x03, 0x41, 0x22, 0x46, 0x72], // b < 0x20 | b == 0x22
    ...[0x20, 0x03, 0x41, 0xdc, 0x00, 0x46, 0x72, 0x0d, 0x01], // | b == 0x5c: br_if $found
    ...[0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, 0x0c, 0x00, 0x0b, 0x0b], // from += 1; br $bytes
    ...[0x20, 0x00, 0x0b], // from
  ];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]), // (i32, i32) -> i32
    ...section(2, [0x01, 0x01, 0x65, 0x01, 0x6d, 0x02, 0x00, 0x01]), // import e.m: memory ≥ 1 page
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, 0x01, 0x73, 0x00, 0x00]), // export "s"
    ...section(10, [0x01, ...unsigned(body.length), ...body]),
  ]);
}

/** The part of WebAssembly's API used here (the packages' `lib` has no WebAssembly types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
/** Missing under `--jitless`. */
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The scan module, compiled once; `null` where WebAssembly (or its SIMD) is not available. */
function scanModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm === undefined ? null : new wasm.Module(scanModuleBytes());
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * A WebAssembly memory of at least `capacity` bytes, or `undefined` when none can be had (each
 * reserves address space of its own: a process holding very many runs out; the encoder then
 * scans in JavaScript).
 */
function wasmMemory(capacity: number): WasmMemory | undefined {
  try {
    return wasm === undefined
      ? undefined
      : new wasm.Memory({ initial: Math.ceil(capacity / PAGE) });
  } catch {
    return undefined;
  }
}

/**
 * The same scan in JavaScript, a byte at a time: where WebAssembly is missing (`--jitless`), and
 * the reference the tests hold the SIMD scan to.
 */
export function scanBytes(bytes: Uint8Array, from: number, to: number): number {
  for (let at = from; at < to; at += 1) {
    const byte = bytes[at]!;
    if (byte < 0x20 || byte === 0x22 || byte === 0x5c) return at;
  }
  return to;
}

/**
 * A growable byte buffer (WebAssembly memory when there is WebAssembly) with
 * {@link ScanBuffer.scan}. Growing keeps the bytes but replaces {@link ScanBuffer.bytes}: views
 * taken before a `reserve` that grew are detached.
 */
export class ScanBuffer {
  /** The whole buffer. */
  bytes: Buffer;
  private readonly memory: WasmMemory | undefined;
  private readonly simdScan: ((from: number, to: number) => number) | undefined;

  constructor(capacity: number, simd = true) {
    const module = simd ? scanModule() : null;
    const memory = module === null ? undefined : wasmMemory(capacity);
    if (module === null || memory === undefined || wasm === undefined) {
      this.bytes = Buffer.allocUnsafeSlow(capacity);
      return;
    }
    this.memory = memory;
    const instance = new wasm.Instance(module, { e: { m: memory } });
    this.simdScan = instance.exports.s as (from: number, to: number) => number;
    this.bytes = Buffer.from(memory.buffer);
  }

  /** True when the scan runs as WebAssembly SIMD (Node 20 has it, unless `--jitless`). */
  get simd(): boolean {
    return this.simdScan !== undefined;
  }

  /**
   * The index of the first byte in `[from, to)` that JSON escapes in a string (below 0x20, `"`,
   * `\`), else `to`.
   */
  scan(from: number, to: number): number {
    return this.simdScan === undefined ? scanBytes(this.bytes, from, to) : this.simdScan(from, to);
  }

  /** Grows to at least `capacity` bytes (doubling), keeping the first `used`. */
  reserve(capacity: number, used: number): void {
    let size = this.bytes.length * 2;
    while (size < capacity) size *= 2;
    if (this.memory === undefined) {
      const previous = this.bytes;
      this.bytes = Buffer.allocUnsafeSlow(size);
      previous.copy(this.bytes, 0, 0, used);
      return;
    }
    this.memory.grow(Math.ceil((size - this.bytes.length) / PAGE));
    this.bytes = Buffer.from(this.memory.buffer);
  }
}
