/**
 * What `compact` does to a log's payloads before it compresses the log: inline payloads over the
 * blob threshold (written before blobs existed, or by a store with another threshold) move to
 * blobs, and every blob the log names is stored compressed. Readers see the same events: a line
 * is rewritten only to hold the blob's reference and preview in place of the payload, and every
 * read resolves it back to the exact string (architecture/storage.md, "Compact").
 */
import type { SessionEvent } from "@tapedeck/session";
import { externalize } from "./blob-payloads";
import type { BlobStore } from "./blob-store";
import type { PendingBlobs } from "./writer";
import { compressBytes } from "./zstd";

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
  /** Every blob the rewritten log names. */
  named: Set<string>;
}

const blobName = /"blob":"([0-9a-f]{64})"/g;

/**
 * Moves the payloads of at least `threshold` UTF-8 bytes in plain log `plain` (a log that replays
 * whole) to blobs. Only a line at least `threshold` bytes long can hold one, and a line that
 * already names a blob keeps its form; other lines are kept byte for byte.
 */
export function movePayloads(plain: Buffer, threshold: number): MovedPayloads {
  const pending: PendingBlobs = new Map();
  const named = new Set<string>();
  const parts: Buffer[] = [];
  let moved = 0;
  let start = 0;
  let kept = 0;
  while (start < plain.length) {
    const newline = plain.indexOf(0x0a, start);
    const end = newline === -1 ? plain.length : newline + 1;
    if (start > 0 && end - start >= threshold) {
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
    for (const match of text.matchAll(blobName)) named.add(match[1] as string);
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
 * and compresses the blobs the log names that a writer stored raw. Returns the blob bytes added.
 */
export function storeMovedPayloads(moved: MovedPayloads, blobs: BlobStore): number {
  let added = 0;
  for (const [hash, data] of moved.pending) {
    if (blobs.has(hash)) continue;
    blobs.put(data, hash, { compressed: true });
    added += blobs.storedBytes(hash);
  }
  for (const hash of moved.named) blobs.compress(hash);
  return added;
}

/** The bytes `moved`'s new blobs would take, compressed (a dry run: nothing written). */
export function estimateMoved(moved: MovedPayloads, blobs: BlobStore): number {
  let added = 0;
  for (const [hash, data] of moved.pending) {
    if (!blobs.has(hash)) added += compressBytes(data).length;
  }
  return added;
}
