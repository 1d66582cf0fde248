import { hash } from "node:crypto";
import type { SourceKey } from "./types";

/**
 * The Tapedeck session id of a source session: UUIDv7-shaped, its time bits the source session's
 * creation time (so `sessions list` orders imports by when they happened), its other bits a hash
 * of the tool, the source id and the generation. The same source session therefore always maps
 * to the same Tapedeck session without any state beyond the logs; generation `n > 0` names the
 * n-th fork made because the source was rewritten.
 */
export function importedSessionId(key: SourceKey, createdAt: string, generation = 0): string {
  const parsed = Date.parse(createdAt);
  const millis = Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
  // One-shot `hash` (no Hash object per call): the same SHA-256 as before, so ids do not change.
  const digest = hash("sha256", `${key.tool}\u0000${key.sessionId}\u0000${generation}`, "buffer");
  const bytes = new Uint8Array(16);
  const high = Math.floor(millis / 2 ** 16);
  bytes[0] = (high >>> 24) & 0xff;
  bytes[1] = (high >>> 16) & 0xff;
  bytes[2] = (high >>> 8) & 0xff;
  bytes[3] = high & 0xff;
  bytes[4] = (millis >>> 8) & 0xff;
  bytes[5] = millis & 0xff;
  for (let index = 6; index < 16; index += 1) bytes[index] = digest[index]!;
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A run id for the n-th turn of a source session (`anchor`: the source id of the prompt that
 * opened it): stable across imports, so a re-import produces identical events and appends nothing.
 */
export function importedRunId(key: SourceKey, turn: number, anchor = ""): string {
  const digest = hash(
    "sha256",
    `${key.tool}\u0000${key.sessionId}\u0000run\u0000${turn}\u0000${anchor}`,
    "hex",
  );
  return `import-${digest.slice(0, 24)}`;
}
