/**
 * The types of the index's sync, apart from the writer (`indexer.ts`) so that the modules a search
 * on a fresh index loads (`sqlite-engine.ts`, `stored.ts`, `index-reads.ts`, `hit-cache.ts`) name
 * them without importing it. Types only: nothing here is emitted.
 */
import type { SessionStore } from "@tapedeck/session-store";

/** The store methods the index needs. */
export type IndexedStore = Pick<
  SessionStore,
  "changesSince" | "entry" | "openLogReader" | "read" | "readSession" | "announceChange"
>;

/** Progress of a sync or rebuild, reported after each session with new data. */
export interface SyncProgress {
  sessionsDone: number;
  sessionsTotal: number;
  eventsIndexed: number;
}

/** What a sync did. */
export interface SyncReport {
  sessionsAdded: number;
  sessionsUpdated: number;
  sessionsRemoved: number;
  eventsIndexed: number;
  /**
   * Sessions found damaged by this sync (a torn tail, which a live writer may still complete, is
   * not listed): indexed up to the damage, listed with status `damaged`. `code` and `message` are
   * the `EventLogCorruptError`'s: the message names the code and where ("SEQ_GAP at session …").
   */
  damaged: { sessionId: string; code: string; message: string }[];
}

/** A row of `sessions`. */
export interface SessionRow {
  id: number;
  session_id: string;
  workspace: number;
  created_at: string;
  updated_at: string;
  parent_id: string | null;
  status: string;
  header: string;
  aggregate: string;
  damage_code: string | null;
  damage_message: string | null;
  file_offset: number;
  file_line: number;
  file_size: number;
  file_ino: number;
  file_mtime: number;
}

/** A log file's state as the index records it (`sessions.file_*`), compared to skip unchanged logs. */
export interface FileState {
  size: number;
  ino: number;
  mtime: number;
}
