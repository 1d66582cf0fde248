/**
 * Opaque page cursors: base64url JSON holding the position after the last item returned and a
 * digest of the query they belong to, so a cursor reused with another query is refused.
 */

import { lazySchema } from "@tapedeck/session/core";
import * as z from "zod/mini";
import { InvalidQueryError } from "./errors";
import { useEnglishMessages } from "./zod-english";

const envelopeSchema = lazySchema(() => {
  useEnglishMessages();
  return z.object({ v: z.literal(1), k: z.string(), q: z.string(), p: z.unknown() });
});

/** FNV-1a digest of a value's JSON (object keys sorted): identifies a query. */
export function queryDigest(value: unknown): string {
  return textDigest(stableJson(value));
}

/**
 * The FNV-1a digest of a text: {@link queryDigest} of a value whose sorted-key JSON is `text`
 * (`JSON.stringify` of an object whose keys were written in sorted order is that JSON).
 */
export function textDigest(text: string): string {
  // Kept as a signed 32-bit integer and made unsigned once at the end: the same bits as
  // unsigned at each step, two operations fewer per character (every search digests its
  // query, usually in code not yet optimised, where each operation counts; issue #12).
  let hash = 0x811c9dc5 | 0;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    // One pass over sorted keys (it runs on every query): no entry arrays, filters or maps.
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let text = "";
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${stableJson(item)}`;
    }
    return `{${text}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Encodes a position for the query `digest` and operation `kind`. */
export function encodeCursor(kind: string, digest: string, position: unknown): string {
  return toBase64Url(JSON.stringify({ v: 1, k: kind, q: digest, p: position }));
}

// btoa/atob rather than Buffer: the root export stays usable in a browser.
function toBase64Url(text: string): string {
  // A cursor's JSON is ASCII (digest, kind, numbers): its UTF-8 bytes are its characters.
  let binary = text;
  if (/[\u0080-\uffff]/.test(text)) {
    binary = "";
    for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same kind and query.
 *
 * @throws InvalidQueryError (`cursor`) for anything else.
 */
export function decodeCursor<T extends z.ZodMiniType>(
  cursor: string,
  kind: string,
  digest: string,
  schema: T,
): z.output<T> {
  let envelope: z.output<ReturnType<typeof envelopeSchema>>;
  try {
    envelope = envelopeSchema().parse(JSON.parse(fromBase64Url(cursor)));
  } catch (error) {
    throw new InvalidQueryError("cursor", "not a cursor returned by this engine", { cause: error });
  }
  if (envelope.k !== kind || envelope.q !== digest) {
    throw new InvalidQueryError("cursor", "this cursor belongs to a different query");
  }
  const position = schema.safeParse(envelope.p);
  if (!position.success) {
    throw new InvalidQueryError("cursor", "not a cursor returned by this engine", {
      cause: position.error,
    });
  }
  return position.data;
}
