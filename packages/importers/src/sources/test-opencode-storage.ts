/**
 * Test helper: opencode's pre-1.2 `storage/` folder (`session/<project>/<ses>.json`,
 * `message/<ses>/<msg>.json`, `part/<msg>/<prt>.json`) written from the sample, as opencode
 * writes it while a session runs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { opencodeSample } from "./test-opencode-db";

/** Options of {@link writeOpencodeStorage}. */
export interface OpencodeStorageOptions {
  /** Writes only the sample's first `messages` messages (default all). */
  messages?: number;
  /** The session's id (default the sample's); another id suffixes every message and part id. */
  sessionId?: string;
}

/** Writes `json` (a string as it is, anything else as opencode does: indented JSON). */
export function writeStorageFile(path: string, json: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof json === "string" ? json : JSON.stringify(json, null, 2));
}

/**
 * Writes the sample as a session of `storage` (created when missing), its first `messages`
 * messages; returns the session file.
 */
export function writeOpencodeStorage(
  storage: string,
  options: OpencodeStorageOptions = {},
): string {
  const sessionId = options.sessionId ?? opencodeSample.info.id;
  const file = join(storage, "session", "prj_1", `${sessionId}.json`);
  writeStorageFile(file, { ...opencodeSample.info, id: sessionId });
  mkdirSync(join(storage, "message"), { recursive: true });
  addOpencodeStorageMessages(
    storage,
    sessionId,
    0,
    options.messages ?? opencodeSample.messages.length,
  );
  return file;
}

/** The message id the sample's `index`-th message has in session `sessionId`. */
export function storageMessageId(sessionId: string, index: number): string {
  const id = opencodeSample.messages[index]!.info.id;
  return sessionId === opencodeSample.info.id ? id : `${id}_${sessionId}`;
}

/** Writes the sample's messages `from` to `to` (and their parts) into session `sessionId`. */
export function addOpencodeStorageMessages(
  storage: string,
  sessionId: string,
  from: number,
  to: number,
): void {
  const suffix = sessionId === opencodeSample.info.id ? "" : `_${sessionId}`;
  for (const [offset, message] of opencodeSample.messages.slice(from, to).entries()) {
    const id = storageMessageId(sessionId, from + offset);
    writeStorageFile(join(storage, "message", sessionId, `${id}.json`), {
      ...message.info,
      id,
      sessionID: sessionId,
    });
    for (const part of message.parts) {
      writeStorageFile(join(storage, "part", id, `${part.id}${suffix}.json`), {
        ...part,
        id: `${part.id}${suffix}`,
        messageID: id,
        sessionID: sessionId,
      });
    }
  }
}
