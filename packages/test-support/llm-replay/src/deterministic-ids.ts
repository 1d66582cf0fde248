import { createHash } from "node:crypto";

/** 24 hex digits derived from `seed`: the same seed always gives the same id. */
export function hashId(seed: string): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, 24);
}

/**
 * A UUIDv7-shaped id whose time part is `time` and whose other bits come from `seed`, so fixtures
 * get valid, time-ordered and stable ids.
 */
export function deterministicUuid(seed: string, time: number): string {
  const random = createHash("sha256").update(seed).digest("hex");
  const millis = Math.max(0, Math.floor(time)).toString(16).padStart(12, "0").slice(-12);
  const variant = ((Number.parseInt(random[15]!, 16) & 0x3) | 0x8).toString(16);
  return `${millis.slice(0, 8)}-${millis.slice(8, 12)}-7${random.slice(0, 3)}-${variant}${random.slice(3, 6)}-${random.slice(6, 18)}`;
}
