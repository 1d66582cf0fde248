/**
 * Which payload fields go to blobs and back: the writer moves a text field over the threshold to
 * the blob store and leaves a reference ({@link externalize}); every read puts the exact string
 * back ({@link resolveBlobs}). Format: architecture/session-log.md, "Blobs".
 */
import {
  type BlobRef,
  EventLogCorruptError,
  type LogLocation,
  type SessionEvent,
  TapedeckError,
} from "@tapedeck/session";
import { type BlobStore, sha256Hex } from "./blob-store";
import { BlobReadError } from "./errors";
import { hasBlobRef, payloadFields } from "./payload-fields";

export { hasBlobRef };

/** Payloads of at least this many UTF-8 bytes go to blobs (measured: architecture/storage.md). */
export const DEFAULT_BLOB_THRESHOLD = 64 * 1024;

/**
 * The threshold in force: `configured` when given, else `TAPEDECK_BLOB_THRESHOLD` (a whole number
 * of bytes ≥ 1, or `off` for none), else {@link DEFAULT_BLOB_THRESHOLD}. A value that is neither
 * is refused with one sentence.
 */
export function blobThresholdOf(configured: number | undefined): number {
  if (configured !== undefined) return configured;
  const raw = process.env.TAPEDECK_BLOB_THRESHOLD?.trim();
  if (raw === undefined || raw === "") return DEFAULT_BLOB_THRESHOLD;
  if (raw === "off") return Number.POSITIVE_INFINITY;
  if (/^[1-9][0-9]*$/.test(raw)) return Number(raw);
  throw new TapedeckError(
    "INVALID_OPTIONS",
    `TAPEDECK_BLOB_THRESHOLD must be a number of bytes or "off", not ${JSON.stringify(raw)}`,
  );
}

/** Characters of a text payload kept in the line as its preview. */
export const PREVIEW_CHARS = 2000;

const TEXT = "text/plain; charset=utf-8";

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `String.prototype.isWellFormed` (ES2024; Node 20 has it), absent from the ES2023 typings. */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;

/** What UTF-8 makes of a lone surrogate: U+FFFD, the replacement character. */
const REPLACEMENT = Buffer.from("\uFFFD", "utf8");

/**
 * Whether `text`, whose UTF-8 is `bytes`, has no lone surrogate (UTF-8 cannot carry one: it
 * becomes U+FFFD). Bytes without U+FFFD prove it: 0.01 ms over 1 MB. Else the string itself is
 * checked (a real U+FFFD in it is kept): the built-in check took 0.2–0.34 ms over 1 MB of
 * non-Latin-1 text, a regular expression 1.3–2.1 ms (before it, each payload paid that).
 */
function wellFormed(text: string, bytes: Buffer): boolean {
  if (bytes.indexOf(REPLACEMENT) === -1) return true;
  return isWellFormed === undefined ? !loneSurrogate.test(text) : isWellFormed.call(text);
}

/**
 * Memory reused for payloads' UTF-8 bytes. `Buffer.from` of a 1 MB output took 0.9–1.2 ms,
 * nearly all of it the kernel handing out fresh pages; writing into memory already touched took
 * 0.1 ms. The views {@link utf8} returns stay valid until {@link reset}.
 */
export class PayloadArena {
  private buffer: Buffer = Buffer.alloc(0);
  private used = 0;

  /** The UTF-8 of `text`, a view valid until the next {@link reset}. */
  utf8(text: string): Buffer {
    const need = text.length * 3;
    if (this.used + need > this.buffer.length) {
      // Earlier views keep the old buffer alive; this one starts afresh.
      this.buffer = Buffer.allocUnsafeSlow(Math.max(need, this.buffer.length * 2));
      this.used = 0;
    }
    const start = this.used;
    this.used += this.buffer.write(text, start, "utf8");
    return this.buffer.subarray(start, this.used);
  }

  /** Makes the memory reusable (every view handed out before is stale). */
  reset(): void {
    this.used = 0;
  }
}

let sharedArena: PayloadArena | undefined;

/**
 * The thread's shared arena, emptied. For blobs written before the next `await` (an append
 * writes its batch's blobs before its first await): nothing else can run in between.
 */
export function scratchArena(): PayloadArena {
  sharedArena ??= new PayloadArena();
  sharedArena.reset();
  return sharedArena;
}

/** The UTF-8 of `text` in a buffer of its own (`arena`'s memory when given). */
function utf8Of(text: string, arena: PayloadArena | undefined): Buffer {
  return arena === undefined ? Buffer.from(text, "utf8") : arena.utf8(text);
}

/** A preview that does not end inside a surrogate pair. */
function previewOf(text: string): string {
  let end = Math.min(text.length, PREVIEW_CHARS);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * The form of `event` written to the log: its payload field in a blob when it holds at least
 * `threshold` UTF-8 bytes and is well-formed (UTF-8 cannot carry a lone surrogate), else `event`
 * itself. An event that already carries a reference is left alone. The blob's bytes are added to
 * `pending` (hash → bytes), in `arena` when given: the caller stores them before it writes the line.
 * `beforeHash` is given the bytes before they are hashed (a writer starts writing them meanwhile).
 */
export function externalize(
  event: SessionEvent,
  threshold: number,
  pending: Map<string, Uint8Array>,
  arena?: PayloadArena,
  beforeHash?: (bytes: Uint8Array) => void,
): SessionEvent {
  const fields = payloadFields[event.type];
  if (fields === undefined) return event;
  const [field, refField] = fields;
  const record = event as unknown as Record<string, unknown>;
  const text = record[field];
  // A string shorter than threshold / 3 characters cannot reach threshold UTF-8 bytes.
  if (typeof text !== "string" || text.length * 3 < threshold || record[refField] !== undefined) {
    return event;
  }
  const bytes = utf8Of(text, arena);
  if (bytes.length < threshold || !wellFormed(text, bytes)) return event;
  beforeHash?.(bytes);
  const hash = sha256Hex(bytes);
  pending.set(hash, bytes);
  const preview = previewOf(text);
  const ref: BlobRef = { blob: hash, bytes: bytes.length, mediaType: TEXT, preview };
  return { ...record, [field]: preview, [refField]: ref } as unknown as SessionEvent;
}

/**
 * The reference an event's `attachments` holds for binary `data` of type `mediaType` (an image):
 * named by its sha256, with a short description as its preview. {@link SessionStore.putBlob}
 * stores the bytes under that name.
 */
export function attachmentRef(data: Uint8Array, mediaType: string): BlobRef {
  return {
    blob: sha256Hex(data),
    bytes: data.length,
    mediaType,
    preview: `${mediaType}, ${data.length} bytes`,
  };
}

/**
 * `event` as it was written: the payload field holds the blob's text again and the reference is
 * dropped. A missing or damaged blob is an `EventLogCorruptError` (`BLOB_MISSING`,
 * `BLOB_CORRUPT`) naming the event's seq and line.
 */
export function resolveBlobs(
  event: SessionEvent,
  blobs: BlobStore,
  location: LogLocation & { sessionId?: string },
): SessionEvent {
  const fields = payloadFields[event.type];
  if (fields === undefined) return event;
  const [field, refField] = fields;
  const record = event as unknown as Record<string, unknown>;
  const ref = record[refField] as BlobRef | undefined;
  if (ref === undefined) return event;
  let data: Buffer;
  try {
    data = blobs.get(ref.blob);
  } catch (error) {
    if (!BlobReadError.isInstance(error)) throw error;
    throw new EventLogCorruptError(
      error.code,
      `the ${field} of event ${event.seq} (${event.type}) is in ${error.message}`,
      { ...location, seq: event.seq, cause: error },
    );
  }
  const { [refField]: _dropped, ...rest } = record;
  return { ...rest, [field]: data.toString("utf8") } as unknown as SessionEvent;
}
