/**
 * Reading a cold log's bytes: the part of `cold-log.ts` that `LogFolder` (the light
 * `/folder` entry) needs, without the session schemas.
 */
import * as fs from "node:fs";
import { hasErrorCode } from "./fs-util";
import { decompressBytes } from "./zstd";

/** The suffix a compressed log adds to its plain name. */
export const COLD_SUFFIX = ".zst";

/** The compressed log of plain log `path`. */
export function coldPathOf(path: string): string {
  return `${path}${COLD_SUFFIX}`;
}

/** The plain bytes of compressed log `coldPath`; `undefined` when there is none. */
export function readColdLog(coldPath: string): Buffer | undefined {
  let stored: Buffer;
  try {
    stored = fs.readFileSync(coldPath);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return undefined;
    throw error;
  }
  return decompressBytes(stored);
}
