/**
 * Log lines straight to UTF-8 bytes. `JSON.stringify` of an event, then encoding the returned
 * string, made the writer escape every string character by character (Node 20: ≈ 500 MB/s) and
 * copy every line twice (into a new string, then into a buffer). The encoder writes an event's
 * strings directly into one buffer and only proves that none needs escaping.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const NEWLINE = 10;
/** Strings shorter than this are copied by a loop here (cheaper than a call into C++). */
const SHORT = 48;
/** A scratch buffer that grew beyond this is dropped after use rather than kept for the next. */
const KEEP_BYTES = 16 * 1024 * 1024;

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
  private buffer: Buffer;
  /** The buffer as 32-bit words, for the escape scan (the buffer starts its own ArrayBuffer). */
  private words: Int32Array;
  private used = 0;
  private readonly ends: number[] = [];

  constructor(capacity = 64 * 1024) {
    this.buffer = Buffer.allocUnsafeSlow(capacity);
    this.words = new Int32Array(this.buffer.buffer, 0, capacity >> 2);
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
    if (this.buffer.length > KEEP_BYTES) this.allocate(64 * 1024);
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
    for (const key of Object.keys(record)) {
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
      if (plain && this.needsNoEscape(start + 1, start + 1 + written)) {
        buffer[start + 1 + written] = QUOTE;
        this.used = start + 2 + written;
        return;
      }
    }
    this.raw(JSON.stringify(value));
  }

  /**
   * True when bytes `[from, to)` hold no `"`, no `\` and no byte below 0x20 (UTF-8 bytes of
   * characters from U+0080 are all ≥ 0x80, so only ASCII can match). Four bytes at a time with
   * the classic word tests (`haszero`, `hasless`), which are exact for "any byte matches".
   */
  private needsNoEscape(from: number, to: number): boolean {
    const buffer = this.buffer;
    let at = from;
    for (; at < to && (at & 3) !== 0; at += 1) {
      const byte = buffer[at]!;
      if (byte < 0x20 || byte === QUOTE || byte === BACKSLASH) return false;
    }
    const words = this.words;
    const last = to >> 2;
    for (let index = at >> 2; index < last; index += 1) {
      const word = words[index]!;
      const quote = word ^ 0x22222222;
      const backslash = word ^ 0x5c5c5c5c;
      const matches =
        ((word - 0x20202020) & ~word) |
        ((quote - 0x01010101) & ~quote) |
        ((backslash - 0x01010101) & ~backslash);
      if ((matches & 0x80808080) !== 0) return false;
    }
    for (at = Math.max(at, last << 2); at < to; at += 1) {
      const byte = buffer[at]!;
      if (byte < 0x20 || byte === QUOTE || byte === BACKSLASH) return false;
    }
    return true;
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
    let capacity = this.buffer.length * 2;
    while (capacity < this.used + bytes) capacity *= 2;
    const previous = this.buffer;
    this.allocate(capacity);
    previous.copy(this.buffer, 0, 0, this.used);
  }

  private allocate(capacity: number): void {
    this.buffer = Buffer.allocUnsafeSlow(capacity);
    this.words = new Int32Array(this.buffer.buffer, 0, capacity >> 2);
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
