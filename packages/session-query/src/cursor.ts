/**
 * Opaque page cursors: base64url JSON holding the position after the last item returned and a
 * digest of the query they belong to, so a cursor reused with another query is refused.
 */
import { z } from "zod";
import { InvalidQueryError } from "./errors";

const envelopeSchema = z.object({ v: z.literal(1), k: z.string(), q: z.string(), p: z.unknown() });

/** FNV-1a digest of a value's JSON (object keys sorted): identifies a query. */
export function queryDigest(value: unknown): string {
  const text = stableJson(value);
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Encodes a position for the query `digest` and operation `kind`. */
export function encodeCursor(kind: string, digest: string, position: unknown): string {
  return toBase64Url(JSON.stringify({ v: 1, k: kind, q: digest, p: position }));
}

// btoa/atob rather than Buffer: the root export stays usable in a browser.
function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
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
export function decodeCursor<T extends z.ZodType>(
  cursor: string,
  kind: string,
  digest: string,
  schema: T,
): z.output<T> {
  let envelope: z.output<typeof envelopeSchema>;
  try {
    envelope = envelopeSchema.parse(JSON.parse(fromBase64Url(cursor)));
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
