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
  /**
   * Sessions whose copy in this home diverged from the one stored (another machine pushed
   * different events from the same seq on): this home's continuation is stored as `storedAs`, a
   * fork of `sessionId` at `seq - 1`. Listed on the push that made the fork.
   */
  diverged: DivergedSession[];
}

/** A session this home continued differently from another machine. */
export interface DivergedSession {
  sessionId: string;
  /** The first seq whose event differs. */
  seq: number;
  /** The fork holding this home's events from `seq` on. */
  storedAs: string;
  /** The host that pushed the stored session. */
  host: string;
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
  /** The last seq this home had pushed from the file (its own, not another machine's). */
  last_seq: number;
  /** Set when this home's copy diverged: its events from this seq on are a fork. */
  diverged_at: number | null;
  /**
   * The invariant state after `last_seq` (JSON of `@tapedeck/session`'s `InvariantSnapshot`), so appended events
   * are checked against every invariant; `null` before migration 3, or once damaged.
   */
  invariants?: string | null;
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
  /** The session row the events go to: the log's own header, or a divergence fork's. */
  header: SessionHeader;
  /** The stored header text of that row. */
  headerText: string;
  /** The log: its id in this home, its header line as written, where the events begin. */
  local: { sessionId: string; header: SessionHeader; headerText: string; eventsStart: number };
  file: FileState;
  state: PushState | undefined;
}
