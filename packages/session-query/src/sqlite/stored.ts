/**
 * What the index trusts without loading the writer (`indexer.ts`, which replays logs and so loads
 * the log's zod schemas): values it wrote itself, the change cursor of its last sync, and the log
 * lines its sync accepted. A search on a fresh index needs nothing else (issue #12: `tapedeck
 * sessions search` compiles and evaluates only this side; see `architecture/session-query.md`).
 */
import type { SessionEvent } from "@tapedeck/session";
import type { ChangeSet } from "@tapedeck/session-store";
import type Database from "better-sqlite3";
import { eventText } from "../text";
import type { SyncReport } from "./sync-types";

/** Parsed JSON of a value this index wrote itself. */
export function parseStored<T>(text: string): T {
  return JSON.parse(text) as T;
}

/**
 * An indexed event's line read back from its log, or `null` when it is not the event the index
 * holds at `seq` (the log changed under the index). The sync replayed and validated the line
 * before indexing it, so it is not validated again: only its identity is checked, and that the
 * text a hit shows is text (a line edited by hand in place, same length, could hold a number
 * there; it is then dropped like any stale line, not shown or snippeted).
 */
export function parseIndexedEvent(line: string, seq: number): SessionEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { seq: lineSeq, type } = value as { seq?: unknown; type?: unknown };
  if (lineSeq !== seq || typeof type !== "string") return null;
  const event = value as SessionEvent;
  return typeof eventText(event) === "string" ? event : null;
}

/** The store's change cursor saved by the last sync (`meta.changes`), or `null`. */
export function savedChangeCursor(db: Database.Database): string | null {
  const row = db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?");
  return row.get("changes")?.value ?? null;
}

/**
 * True when the store's answer to `changesSince(saved)` says nothing changed since the sync that
 * saved `saved`: the journal names no session, the folder is as it was, the cursor did not move.
 */
export function nothingChanged(changes: ChangeSet, saved: string | null): boolean {
  return (
    changes.kind === "journal" &&
    changes.sessionIds.length === 0 &&
    changes.present === undefined &&
    changes.cursor === saved
  );
}

/** The report of a sync that found nothing to do. */
export function emptySyncReport(): SyncReport {
  return {
    sessionsAdded: 0,
    sessionsUpdated: 0,
    sessionsRemoved: 0,
    eventsIndexed: 0,
    damaged: [],
  };
}
