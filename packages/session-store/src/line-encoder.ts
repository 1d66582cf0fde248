/**
 * Log lines straight to UTF-8 bytes. `JSON.stringify` of an event, then encoding the returned
 * string, made the writer escape every string character by character (Node 20: ≈ 500 MB/s) and
 * copy every line twice (into a new string, then into a buffer). The encoder writes an event's
 * strings directly into one buffer and only proves that none needs escaping.
 */

import { ScanBuffer } from "./scan-buffer";

const QUOTE = 34;
const BACKSLASH = 92;
const NEWLINE = 10;
/** Strings shorter than this are copied by a loop here (cheaper than a call into C++). */
const SHORT = 48;
/** A scratch buffer that grew beyond this is dropped after use rather than kept for the next. */
const KEEP_BYTES = 16 * 1024 * 1024;

/** The second byte of JSON's two-byte escapes (`\n` → `n`), by the byte escaped; 0: `\u00xx`. */
const SHORT_ESCAPES = new Uint8Array(128);
for (const [byte, letter] of [
  [QUOTE, QUOTE],
  [BACKSLASH, BACKSLASH],
  [8, 98],
  [9, 116],
  [10, 110],
  [12, 102],
  [13, 114],
] as const)
  SHORT_ESCAPES[byte] = letter;
const hasOwn = Object.prototype.hasOwnProperty;
/** Lowercase hex digits, as JSON.stringify writes `\u001f`. */
const HEX = Buffer.from("0123456789abcdef");

/** `"key":` and `,"key":` as bytes, for keys seen before (bounded: x- events bring any key). */
const keyBytes = new Map<string, [Uint8Array, Uint8Array]>();
const MAX_KEYS = 4096;

function keyOf(key: string): [Uint8Array, Uint8Array] {
  let bytes = keyBytes.get(key);
  if (bytes === undefined) {
    const text = `${JSON.stringify(key)}:`;
    bytes = [Buffer.from(text), Buffer.from(`,${text}`)];
    if (keyBytes.size < MAX_KEYS) keyBytes.set(key, bytes);
  }
  return bytes;
}

/**
 * Builds log lines in one growing buffer: each line is exactly the UTF-8 of `JSON.stringify(value)`
 * followed by "\n" (tested against `JSON.stringify` on every kind of value and string).
 *
 * A plain object's members are written one by one: a string member is copied as UTF-8 and scanned
 * for what JSON escapes (`"`, `\`, characters below U+0020; a lone surrogate is caught before),
 * and only a string that holds one goes through `JSON.stringify`; numbers, booleans and `null`
 * are written as JSON writes them; nested objects and arrays, and anything with a `toJSON`, go
 * through `JSON.stringify` (so its rules, not a copy of them, decide). Not thread-safe, not
 * re-entrant: one line at a time.
 */
export class LineEncoder {
  private memory: ScanBuffer;
  /** `memory.bytes`. */
  private buffer: Buffer;
  private used = 0;
  private readonly ends: number[] = [];
  /** Positions of the bytes a string needs escaped (see `escapeInPlace`), reused. */
  private specials = new Int32Array(256);
  /** How many of `specials` the string in hand has, and the bytes their escapes add. */
  private count = 0;
  private extra = 0;

  /** `simd: false` scans in JavaScript (as where WebAssembly is missing; tests). */
  constructor(
    capacity = 64 * 1024,
    private readonly simd = true,
  ) {
    this.memory = new ScanBuffer(capacity, simd);
    this.buffer = this.memory.bytes;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.used;
  }

  /** Lines written so far. */
  get lineCount(): number {
    return this.ends.length;
  }

  /**
   * The lines written so far, each with its "\n". A view of the encoder's buffer: valid until
   * the encoder is written to or reset.
   */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.used);
  }

  /** Line `index` (0-based) with its "\n", as a view like {@link bytes}. */
  line(index: number): Buffer {
    return this.buffer.subarray(index === 0 ? 0 : this.ends[index - 1], this.ends[index]);
  }

  /** Forgets every line; a buffer grown past 16 MiB is let go. */
  reset(): void {
    this.used = 0;
    this.ends.length = 0;
    if (this.buffer.length > KEEP_BYTES) {
      this.memory = new ScanBuffer(64 * 1024, this.simd);
      this.buffer = this.memory.bytes;
    }
  }

  /** Appends `text` (one line of JSON text, no "\n" in it) and "\n". */
  text(text: string): void {
    this.raw(text);
    this.endLine();
  }

  /** Appends the line `JSON.stringify(value)` and "\n". Throws what `JSON.stringify` throws. */
  json(value: unknown): void {
    const start = this.used;
    if (!this.object(value)) {
      this.used = start;
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError("a log line must be JSON");
      this.raw(text);
    }
    this.endLine();
  }

  private endLine(): void {
    this.reserve(1);
    this.buffer[this.used] = NEWLINE;
    this.used += 1;
    this.ends.push(this.used);
  }

  /** Writes a plain object member by member; false (leaving garbage past the start) if it cannot. */
  private object(value: unknown): boolean {
    if (typeof value !== "object" || value === null) return false;
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
    const record = value as Record<string, unknown>;
    this.reserve(1);
    this.buffer[this.used] = 123; // {
    this.used += 1;
    let first = true;
    for (const key in record) {
      // for-in reads members by the object's own key cache (faster than Object.keys); an
      // enumerable member of a prototype (one somebody added to Object.prototype) is not JSON's.
      if (!hasOwn.call(record, key)) continue;
      const member = record[key];
      let text: string | undefined;
      switch (typeof member) {
        case "string":
          this.key(key, first);
          this.string(member);
          first = false;
          continue;
        case "number":
          text = Number.isFinite(member) ? String(member) : "null";
          break;
        case "boolean":
          text = member ? "true" : "false";
          break;
        case "object":
          if (member !== null && typeof (member as { toJSON?: unknown }).toJSON === "function") {
            // JSON.stringify passes the member's key to toJSON: let it do the whole line.
            return false;
          }
          text = member === null ? "null" : JSON.stringify(member);
          break;
        case "bigint":
          return false;
        default:
          // undefined, functions and symbols: left out, as JSON.stringify leaves them out.
          continue;
      }
      this.key(key, first);
      this.raw(text);
      first = false;
    }
    this.reserve(1);
    this.buffer[this.used] = 125; // }
    this.used += 1;
    return true;
  }

  private key(key: string, first: boolean): void {
    const bytes = keyOf(key)[first ? 0 : 1];
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** A JSON string: copied as UTF-8 when nothing in it needs escaping, else JSON.stringify's. */
  private string(value: string): void {
    const length = value.length;
    this.reserve(length * 3 + 2);
    const buffer = this.buffer;
    const start = this.used;
    buffer[start] = QUOTE;
    if (length < SHORT) {
      // ASCII without anything to escape, by a loop; anything else below.
      let at = start + 1;
      let index = 0;
      for (; index < length; index += 1) {
        const code = value.charCodeAt(index);
        if (code < 0x20 || code >= 0x80 || code === QUOTE || code === BACKSLASH) break;
        buffer[at] = code;
        at += 1;
      }
      if (index === length) {
        buffer[at] = QUOTE;
        this.used = at + 1;
        return;
      }
    } else {
      const written = buffer.write(value, start + 1);
      // As many bytes as characters: all ASCII. Otherwise a lone surrogate (which UTF-8 cannot
      // hold, and JSON.stringify writes as \uXXXX) must be ruled out.
      const plain = written === length || isWellFormed(value);
      const end = plain ? this.escapeInPlace(start + 1, start + 1 + written) : -1;
      if (end !== -1) {
        this.buffer[end] = QUOTE;
        this.used = end + 1;
        return;
      }
    }
    this.raw(JSON.stringify(value));
  }

  /** Notes the byte at `at`, which needs escaping; false once more than `limit` do. */
  private mark(at: number, limit: number): boolean {
    if (this.count === limit) return false;
    this.specials[this.count] = at;
    this.count += 1;
    this.extra += SHORT_ESCAPES[this.buffer[at]!] === 0 ? 5 : 1;
    return true;
  }

  /**
   * Escapes, in place, the UTF-8 bytes `[from, to)` of a well-formed string as JSON.stringify
   * escapes them (`\"`, `\\`, `\b \f \n \r \t`, other bytes below 0x20 as `\u00xx`; UTF-8 bytes
   * of characters from U+0080 are all ≥ 0x80, so only ASCII can need it) and returns where the
   * escaped text ends; -1 when more than one byte in 16 needs it (JSON text inside a string, say:
   * JSON.stringify does that faster) or the buffer has no room (the caller then uses
   * JSON.stringify). The scan is the buffer's (sixteen bytes at a time); the bytes after each
   * escape are moved once, from the end backwards.
   */
  private escapeInPlace(from: number, to: number): number {
    const buffer = this.buffer;
    const limit = (to - from) >> 4;
    if (this.specials.length <= limit) this.specials = new Int32Array(limit + 1);
    this.count = 0;
    this.extra = 0;
    const memory = this.memory;
    for (let at = memory.scan(from, to); at < to; at = memory.scan(at + 1, to)) {
      if (!this.mark(at, limit)) return -1;
    }
    const { specials, count, extra } = this;
    if (count === 0) return to;
    const end = to + extra;
    if (end >= buffer.length) return -1;
    let target = end;
    let source = to;
    for (let index = count - 1; index >= 0; index -= 1) {
      const position = specials[index]!;
      const after = source - position - 1;
      if (after > 0) buffer.copyWithin(target - after, position + 1, source);
      target -= after;
      const byte = buffer[position]!;
      const short = SHORT_ESCAPES[byte]!;
      if (short !== 0) {
        buffer[target - 2] = BACKSLASH;
        buffer[target - 1] = short;
        target -= 2;
      } else {
        buffer[target - 6] = BACKSLASH;
        buffer[target - 5] = 117; // u
        buffer[target - 4] = 48; // 0
        buffer[target - 3] = 48; // 0
        buffer[target - 2] = HEX[byte >> 4]!;
        buffer[target - 1] = HEX[byte & 15]!;
        target -= 6;
      }
      source = position;
    }
    return end;
  }

  /** Writes `text` as UTF-8 (JSON text: already escaped). */
  private raw(text: string): void {
    const length = text.length;
    this.reserve(length * 3);
    if (length < SHORT) {
      const buffer = this.buffer;
      let at = this.used;
      let index = 0;
      for (; index < length; index += 1) {
        const code = text.charCodeAt(index);
        if (code >= 0x80) break;
        buffer[at] = code;
        at += 1;
      }
      if (index === length) {
        this.used = at;
        return;
      }
    }
    this.used += this.buffer.write(text, this.used);
  }

  /** Room for `bytes` more. */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    this.memory.reserve(this.used + bytes, this.used);
    this.buffer = this.memory.bytes;
  }
}

/** `String.prototype.isWellFormed` (Node ≥ 20; typed here for older `lib` settings). */
function isWellFormed(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

let scratch: LineEncoder | undefined;

/**
 * The thread's shared encoder, emptied. For lines that are written before the next `await`
 * (a new log, an append): nothing else can run in between, so one buffer serves every write.
 */
export function scratchEncoder(): LineEncoder {
  scratch ??= new LineEncoder();
  scratch.reset();
  return scratch;
}
