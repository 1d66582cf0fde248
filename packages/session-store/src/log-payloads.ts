/**
 * What `compact` does to a log's payloads before it compresses the log: inline payloads over the
 * blob threshold (written before blobs existed, or by a store with another threshold) move to
 * blobs, and every blob the log names is stored compressed. Readers see the same events: a line
 * is rewritten only to hold the blob's reference and preview in place of the payload, and every
 * read resolves it back to the exact string (architecture/storage.md, "Compact").
 */
import type { SessionEvent } from "@tapedeck/session";
import { BLOB_LEVEL, DeltaPlanner } from "./blob-delta";
import { externalize } from "./blob-payloads";
import type { BlobStore } from "./blob-store";
import type { PendingBlobs } from "./writer";
import { compressBytesAt } from "./zstd";

/** Event types whose payload may move to a blob (their field names: blob-payloads.ts). */
const payloadTypes = [
  '"type":"function_call_output"',
  '"type":"message"',
  '"type":"function_call"',
];

/** A log's bytes with its large inline payloads moved out, and the blobs it then names. */
export interface MovedPayloads {
  /** The log's bytes to compress: `plain` itself when no line changed. */
  bytes: Buffer;
  /** Lines rewritten. */
  moved: number;
  /** New blobs (hash → payload bytes), to be stored before the log naming them is. */
  pending: PendingBlobs;
  /** Every blob the rewritten log names, in the order of the log, with its media type when known. */
  named: Map<string, string | undefined>;
}

/** A reference as `externalize` and `attachmentRef` write it: name, size, media type. */
const blobName = /"blob":"([0-9a-f]{64})"(?:,"bytes":[0-9]+,"mediaType":"((?:[^"\\]|\\.)*)")?/g;

/**
 * Moves the payloads of at least `threshold` UTF-8 bytes in plain log `plain` (a log that replays
 * whole) to blobs. Only a line at least `threshold` bytes long can hold one, and a line that
 * already names a blob keeps its form; other lines are kept byte for byte, and so is every line
 * that starts before byte `from` (line 1, the header, by default; a cold log's `.zst` when its
 * segment is folded).
 */
export function movePayloads(plain: Buffer, threshold: number, from = 1): MovedPayloads {
  const pending: PendingBlobs = new Map();
  const named = new Map<string, string | undefined>();
  const parts: Buffer[] = [];
  let moved = 0;
  let start = 0;
  let kept = 0;
  while (start < plain.length) {
    const newline = plain.indexOf(0x0a, start);
    const end = newline === -1 ? plain.length : newline + 1;
    if (start >= from && end - start >= threshold) {
      const text = plain.toString("utf8", start, end - 1);
      const rewritten = rewriteLine(text, threshold, pending);
      if (rewritten !== undefined) {
        parts.push(plain.subarray(kept, start), Buffer.from(`${rewritten}\n`, "utf8"));
        kept = end;
        moved += 1;
      }
    }
    start = end;
  }
  const bytes = moved === 0 ? plain : Buffer.concat([...parts, plain.subarray(kept)]);
  const text = bytes.toString("latin1");
  if (text.includes('"blob":"')) {
    for (const match of text.matchAll(blobName)) {
      const hash = match[1] as string;
      if (!named.has(hash) || named.get(hash) === undefined) named.set(hash, match[2]);
    }
  }
  return { bytes, moved, pending, named };
}

/** The line with its payload in a blob, or `undefined` when it stays as it is. */
function rewriteLine(text: string, threshold: number, pending: PendingBlobs): string | undefined {
  if (!payloadTypes.some((type) => text.includes(type))) return undefined;
  const event = JSON.parse(text) as SessionEvent;
  const external = externalize(event, threshold, pending);
  return external === event ? undefined : JSON.stringify(external);
}

/**
 * Stores `moved`'s new blobs compressed and for good (before the log that names them is written),
 * and compresses the blobs the log names that a writer stored raw. In the log's order, each may
 * become a delta against one of the log's recent blobs of its media type (`blob-delta.ts`).
 * Returns the blob bytes added.
 */
export function storeMovedPayloads(moved: MovedPayloads, blobs: BlobStore): number {
  const planner = plannerOver(blobs);
  let added = 0;
  for (const [hash, mediaType] of moved.named) {
    const plan = { planner, mediaType };
    const data = moved.pending.get(hash);
    // A new blob already stored (another session's) is reused, made young again (`compress`).
    if (data === undefined || blobs.has(hash)) blobs.compress(hash, plan);
    // Not stored, or gone meanwhile (another process's sweep): stored now.
    if (data !== undefined && !blobs.has(hash)) {
      blobs.put(data, hash, { compressed: true, plan });
      added += blobs.storedBytes(hash);
    }
  }
  // Every new blob is named by the rewritten log; any other is stored all the same.
  for (const [hash, data] of moved.pending) {
    if (blobs.has(hash)) continue;
    blobs.put(data, hash, { compressed: true });
    added += blobs.storedBytes(hash);
  }
  return added;
}

/**
 * The bytes `moved`'s new blobs would take, compressed as {@link storeMovedPayloads} would (a dry
 * run: nothing written). Cheap for `tapedeck storage`: nothing is done for a log without inline
 * payloads to move, and the raw blobs a writer stored are neither counted nor tried as bases (a
 * new blob that compact would store as a delta against one of them is counted as a plain frame).
 */
export function estimateMoved(moved: MovedPayloads, blobs: BlobStore): number {
  if (moved.pending.size === 0) return 0;
  const planner = plannerOver(blobs);
  let added = 0;
  for (const [hash, mediaType] of moved.named) {
    const pending = moved.pending.get(hash);
    if (pending !== undefined && !blobs.has(hash)) {
      const data = Buffer.from(pending.buffer, pending.byteOffset, pending.byteLength);
      const file = planner.frameFor(hash, data, mediaType);
      planner.stored(hash, mediaType, data, file);
      added += file.length;
    } else if (blobs.isDelta(hash) !== undefined) {
      planner.stored(hash, mediaType);
    }
  }
  for (const [hash, data] of moved.pending) {
    if (!blobs.has(hash) && !moved.named.has(hash)) {
      added += compressBytesAt(data, BLOB_LEVEL).length;
    }
  }
  return added;
}

/** A planner that reads earlier blobs from `blobs`. */
function plannerOver(blobs: BlobStore): DeltaPlanner {
  return new DeltaPlanner({
    get: (hash) => blobs.get(hash),
    isDelta: (hash) => blobs.isDelta(hash),
  });
}
