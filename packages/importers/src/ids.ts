import { hash } from "node:crypto";
import { layoutUuidv7 } from "@tapedeck/session/core";
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
  return layoutUuidv7(millis, new Uint8Array(digest.buffer, digest.byteOffset, 16));
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
