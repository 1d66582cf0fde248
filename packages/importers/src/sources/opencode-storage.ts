/**
 * opencode's JSON-file storage (0.x/1.x): `storage/session/<projectID>/<ses>.json`,
 * `storage/message/<ses>/<msg>.json`, `storage/part/<msg>/<prt>.json`, assembled into the
 * `opencode export` shape so one converter reads both.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseJsonDocument } from "../lines";
import type { SkippedLine } from "../types";
import { isRecord } from "./common";
import { type ConfinedFolder, childOf, confinedFolder } from "./confined-read";

/** The storage directory under `root` (`root` itself, or `root/storage`), if there is one. */
export function opencodeStorageDir(root: string): string | undefined {
  for (const candidate of [root, join(root, "storage")]) {
    if (existsSync(join(candidate, "session")) && existsSync(join(candidate, "message")))
      return candidate;
  }
  return undefined;
}

/** Every session file of a storage directory. */
export function opencodeStorageSessions(storage: string): string[] {
  const files: string[] = [];
  const sessionDir = join(storage, "session");
  for (const project of safeList(sessionDir)) {
    for (const name of safeList(join(sessionDir, project))) {
      if (name.endsWith(".json")) files.push(join(sessionDir, project, name));
    }
  }
  return files.sort();
}

/**
 * One session of a storage directory as an export document; damaged files are skipped. Reads stay
 * inside `storage` (`confinedFolder`): an id with `/` or `..` is refused, as are links leading out
 * and files that are not regular (a FIFO is refused without waiting).
 */
export function readOpencodeStorageSession(
  storage: string,
  sessionFile: string,
  skipped: SkippedLine[],
): unknown {
  const folder = confinedFolder(storage);
  const info = readJson(folder, sessionFile, skipped);
  if (!isRecord(info) || typeof info.id !== "string") return info;
  const messages: { info: unknown; parts: unknown[] }[] = [];
  const messageDir = childOf(join(storage, "message"), info.id);
  if (messageDir === undefined) {
    skipped.push(badId(sessionFile, "session", info.id));
    return { info, messages };
  }
  for (const name of folder.list(messageDir).filter((file) => file.endsWith(".json"))) {
    const messageFile = join(messageDir, name);
    const message = readJson(folder, messageFile, skipped);
    if (!isRecord(message) || typeof message.id !== "string") continue;
    const partDir = childOf(join(storage, "part"), message.id);
    if (partDir === undefined) {
      skipped.push(badId(messageFile, "message", message.id));
      continue;
    }
    const parts = folder
      .list(partDir)
      .filter((file) => file.endsWith(".json"))
      .map((file) => readJson(folder, join(partDir, file), skipped))
      .filter((part) => part !== undefined);
    messages.push({ info: message, parts });
  }
  // Ids are time-ordered (`msg_…`, `prt_…`), so file-name order is creation order.
  return { info, messages };
}

function badId(path: string, what: string, id: string): SkippedLine {
  return {
    path,
    line: 0,
    offset: 0,
    reason: `a ${what} id with / or .. (${JSON.stringify(id)}) names no file inside the storage folder; not read`,
  };
}

function readJson(folder: ConfinedFolder, path: string, skipped: SkippedLine[]): unknown {
  const read = folder.read(path);
  if (!("text" in read)) {
    skipped.push({ path, line: 0, offset: 0, reason: read.reason });
    return undefined;
  }
  const parsed = parseJsonDocument(read.text, path);
  if (!parsed.ok) {
    skipped.push(parsed.skipped);
    return undefined;
  }
  return parsed.value;
}

function safeList(directory: string): string[] {
  try {
    return readdirSync(directory).sort();
  } catch {
    return [];
  }
}
