/** Types shared by the push modules (`push.ts` plans, `push-group.ts` writes). */
import type { SessionHeader } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import type { Connection } from "./connection";

/** The store methods a push needs (`createSessionStore({ home })`). */
export type PushStore = Pick<SessionStore, "home" | "changesSince" | "entry" | "read">;

/** Options of a push. */
export interface PushOptions {
  /** Recorded as the pushing host of new sessions; default `os.hostname()`. */
  host?: string;
  /** Called after each session with new data, and once at the end. */
  onProgress?: (progress: PushProgress) => void;
  /** Events per INSERT; default 1000. */
  batchSize?: number;
  /** Logs sharing one transaction at most; default 100 (one large log always goes alone). */
  sessionsPerTransaction?: number;
  /**
   * Only these sessions: their logs are pushed, or removed from the index when gone. Default: the
   * sessions the store's change journal names since this home's last push (all of them the first
   * time, or when the journal cannot answer).
   */
  sessionIds?: readonly string[];
  /** Look at every log (a full scan) instead of asking the change journal. */
  full?: boolean;
}

/** Progress of a push. */
export interface PushProgress {
  sessionsDone: number;
  sessionsTotal: number;
  eventsPushed: number;
}

/** What a push did. */
export interface PushReport {
  sessionsAdded: number;
  sessionsUpdated: number;
  sessionsRemoved: number;
  eventsPushed: number;
  /** Bytes of event JSON pushed. */
  bytesPushed: number;
  /**
   * Sessions skipped because the index holds another log under the same id (a different header,
   * pushed from another home).
   */
  conflicts: string[];
}

/** One row of `tapedeck index --stats`. */
export interface HostStats {
  host: string;
  sessions: number;
  events: number;
  /** Bytes of event JSON stored. */
  bytes: number;
}

/** This home's progress in one log, as stored. */
export interface PushState {
  session_id: string;
  header: string;
  file_offset: string;
  file_line: number;
  file_size: string;
  file_ino: string;
  file_mtime: number;
  last_seq: number;
}

/** What identifies a version of a log file. */
export interface FileState {
  size: number;
  ino: number;
  mtime: number;
}

/** What every push transaction of one push shares. */
export interface PushContext {
  db: Connection;
  store: PushStore;
  host: string;
  source: string;
  batchSize: number;
}

/** A log with something to push. */
export interface LogJob {
  header: SessionHeader;
  headerLine: { text: string; end: number };
  file: FileState;
  state: PushState | undefined;
}
