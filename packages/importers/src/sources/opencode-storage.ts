/**
 * opencode's JSON-file storage (0.x/1.x): `storage/session/<projectID>/<ses>.json`,
 * `storage/message/<ses>/<msg>.json`, `storage/part/<msg>/<prt>.json`, assembled into the
 * `opencode export` shape so one converter reads both.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseJsonDocument } from "../lines";
import type { SkippedLine } from "../types";
import { isRecord } from "./common";

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

/** One session of a storage directory as an export document; damaged files are skipped. */
export function readOpencodeStorageSession(
  storage: string,
  sessionFile: string,
  skipped: SkippedLine[],
): unknown {
  const info = readJson(sessionFile, skipped);
  if (!isRecord(info) || typeof info.id !== "string") return info;
  const messages: { info: unknown; parts: unknown[] }[] = [];
  const messageDir = join(storage, "message", info.id);
  for (const name of safeList(messageDir).filter((file) => file.endsWith(".json"))) {
    const message = readJson(join(messageDir, name), skipped);
    if (!isRecord(message) || typeof message.id !== "string") continue;
    const partDir = join(storage, "part", message.id);
    const parts = safeList(partDir)
      .filter((file) => file.endsWith(".json"))
      .map((file) => readJson(join(partDir, file), skipped))
      .filter((part) => part !== undefined);
    messages.push({ info: message, parts });
  }
  // Ids are time-ordered (`msg_…`, `prt_…`), so file-name order is creation order.
  return { info, messages };
}

function readJson(path: string, skipped: SkippedLine[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    skipped.push({ path, line: 0, offset: 0, reason: "unreadable" });
    return undefined;
  }
  const parsed = parseJsonDocument(text, path);
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
