/**
 * Tapedeck's own exports (`tapedeck sessions export`): a header line, then every event from seq 1.
 * A fork's export carries `parent` in its header and its parent's prefix inlined, which the
 * store's reader refuses (it would look for the parent's file); here the whole export is one
 * self-contained session, with the parent reference kept in `origin.parent`.
 */
import {
  EventLogCorruptError,
  parseEvent,
  parseHeader,
  Session,
  type SessionEvent,
  type SessionHeader,
} from "@tapedeck/session";
import { parseJsonLine } from "../lines";
import type { Conversion, SkippedLine, TimedDraft } from "../types";
import { oneSession, refusedFile, type SourceFile } from "./common";

/** Converts one export file; events after the first invalid one are skipped and counted. */
export function convertTapedeckExport(file: SourceFile): Conversion {
  const skipped: SkippedLine[] = [];
  const [first, ...rest] = file.lines;
  if (first === undefined) return { sessions: [], skipped, entries: 0 };
  const parsedHeader = parseJsonLine(first, file.path);
  let header: SessionHeader;
  try {
    if (!parsedHeader.ok) throw parsedHeader.skipped;
    header = parseHeader(parsedHeader.value, { line: first.line, offset: first.offset });
  } catch {
    skipped.push({
      path: file.path,
      line: first.line,
      offset: first.offset,
      reason: "not a Tapedeck session header",
    });
    return { sessions: [], skipped, entries: 0 };
  }
  // Replay without the parent's file: the prefix is inlined, so the export replays as a root.
  const { parent, ...root } = header;
  const session = Session.create(header.sessionId, [], root as SessionHeader);
  const events: TimedDraft[] = [];
  let broken: string | undefined;
  for (const source of rest) {
    if (broken !== undefined) {
      skipped.push({
        path: file.path,
        line: source.line,
        offset: source.offset,
        reason: `after an invalid event (${broken})`,
      });
      continue;
    }
    const parsed = parseJsonLine(source, file.path);
    if (!parsed.ok) {
      skipped.push(parsed.skipped);
      continue;
    }
    let event: SessionEvent;
    try {
      event = parseEvent(parsed.value, { line: source.line, offset: source.offset });
      session.append(event);
    } catch (error) {
      broken = EventLogCorruptError.isInstance(error) ? error.code : "invalid event";
      skipped.push({ path: file.path, line: source.line, offset: source.offset, reason: broken });
      continue;
    }
    const { seq: _seq, ...draft } = event;
    events.push(draft as TimedDraft);
  }
  if (parent !== undefined && events.length === 0 && broken === "SEQ_GAP") {
    // A fork's own log (from the sessions folder): its events start after the parent's.
    return refusedFile(
      file.path,
      "a fork's log without its parent's events: import what `tapedeck sessions export ID` writes",
    );
  }
  const converted = {
    key: { tool: "tapedeck" as const, sessionId: header.sessionId },
    path: file.path,
    cwd: header.cwd,
    createdAt: header.createdAt,
    events,
    ...(parent === undefined ? {} : { originFields: { parent } }),
  };
  return oneSession(converted, skipped, events.length + 1);
}
