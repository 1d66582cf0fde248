import { InvalidSessionIdError } from "./errors";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True when `value` is a lowercase UUID, the only form a session id may take. */
export function isSessionId(value: string): boolean {
  return uuidPattern.test(value);
}

/** Returns `value` when it is a valid session id; throws {@link InvalidSessionIdError} otherwise. */
export function assertSessionId(value: string): string {
  if (!isSessionId(value)) throw new InvalidSessionIdError(value);
  return value;
}

/** Web Crypto, present in browsers and in Node ≥ 19 as a global (typed here without DOM or Node types). */
function webCrypto(): { getRandomValues(array: Uint8Array): Uint8Array } {
  return (globalThis as unknown as { crypto: { getRandomValues(array: Uint8Array): Uint8Array } })
    .crypto;
}

let lastMillis = 0;
let sequence = 0;

/**
 * A new UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids created in the same
 * millisecond by this process stay ordered through a 12-bit counter in `rand_a`.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  webCrypto().getRandomValues(bytes);
  if (now <= lastMillis) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMillis += 1;
    now = lastMillis;
  } else {
    lastMillis = now;
    sequence = (bytes[6]! & 0x07) << 8;
    sequence |= bytes[7]!;
  }
  bytes[6] = (sequence >>> 8) & 0x0f;
  bytes[7] = sequence & 0xff;
  return layoutUuidv7(now, bytes);
}

/**
 * The UUIDv7 layout (RFC 9562) over 16 bytes: bytes 0–5 become `millis` (48 bits, big-endian),
 * the version (7) and variant bits are set in bytes 6 and 8, and the other 74 bits are kept as
 * given (random for {@link uuidv7}, a hash for ids derived from something else). Writes into
 * `bytes`; returns the lowercase hyphenated form.
 */
export function layoutUuidv7(millis: number, bytes: Uint8Array): string {
  const high = Math.floor(millis / 2 ** 16);
  bytes[0] = (high >>> 24) & 0xff;
  bytes[1] = (high >>> 16) & 0xff;
  bytes[2] = (high >>> 8) & 0xff;
  bytes[3] = high & 0xff;
  bytes[4] = (millis >>> 8) & 0xff;
  bytes[5] = millis & 0xff;
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
