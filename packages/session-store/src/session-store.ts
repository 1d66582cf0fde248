import type {
  LockOwner,
  Session,
  SessionEvent,
  SessionEventDraft,
  SessionHeader,
  SurfaceItem,
} from "@tapedeck/session";

/** When the store calls `fsync`. */
export type Durability =
  /** At every `turn/end` and before an approval waits for a person (default). */
  | "turn"
  /** After every appended event. */
  | "every-event";

/** Options of `createSessionStore`. */
export interface SessionStoreOptions {
  /** Root directory; default `$TAPEDECK_HOME` or `~/.tapedeck`. Logs live in `<home>/sessions/`. */
  home?: string;
  /** Default `"turn"`. */
  durability?: Durability;
  /** Agent name/version written into new headers. */
  agent?: { name: string; version: string };
  /** Clock, for tests. */
  now?: () => Date;
  /**
   * Where warnings go, e.g. a `sessions/<uuid>.jsonl` that is a directory, FIFO or symbolic link
   * and is skipped by `list()` (once per entry and store). Default: a line on stderr.
   */
  onWarning?: (message: string) => void;
}

/** One event as read from a file, with where it sits. */
export interface ReadEvent {
  event: SessionEvent;
  /** 1-based line number (the header is line 1). */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past the line's "\n". */
  end: number;
}

/** A session's header as listed by `list()`, with the file's size and time. */
export interface SessionListing {
  sessionId: string;
  header: SessionHeader;
  /** Size of the log file in bytes. */
  size: number;
  /** Last modification time of the log file. */
  modifiedAt: Date;
}

/** What `repair` did. */
export interface RepairReport {
  sessionId: string;
  /** `"none"` when the log had no torn tail. */
  action: "none" | "moved-torn-tail";
  /** Bytes moved out of the log. */
  bytesMoved: number;
  /** The sidecar file that now holds the fragment. */
  sidecarPath?: string;
  /** The log's size after the repair. */
  size: number;
}

/** The result of `resumeSession`: everything needed to continue, nothing written. */
export interface ResumedSession {
  session: Session;
  /** The surface (compactions applied) plus the synthetic outputs of the repairs. */
  history: SurfaceItem[];
  /** `normalize(session)`: the repairs to persist before the next turn (may be empty). */
  synthesizedEvents: SessionEventDraft[];
}

/**
 * A writer holds a session's lock for a whole run: it replays the log once when opened and
 * validates every later append against its in-memory Session in O(new events).
 */
export interface SessionWriter {
  readonly sessionId: string;
  /**
   * The replayed session, kept up to date by `append`. Read it through the writer each time:
   * after a refused batch it is a rebuilt object without the refused drafts.
   */
  readonly session: Session;
  /**
   * Assigns `seq`/`ts`, validates each draft against the session, writes one `write()` per line,
   * and returns the complete events. All drafts are validated before any is written; an invalid
   * draft throws `EventLogCorruptError` and writes nothing.
   */
  append(drafts: readonly SessionEventDraft[]): Promise<SessionEvent[]>;
  /** fsync now (before an approval waits, for example). */
  sync(): Promise<void>;
  /** fsyncs, releases the lock. Idempotent. */
  close(): Promise<void>;
}

/**
 * Append-only JSONL persistence. Nothing is cached between calls: every method works from the
 * files alone, so another process (or machine) sees the same state.
 *
 * Every method that takes a session id throws `InvalidSessionIdError` for anything that is not a
 * lowercase UUID (before a path is built) and `SessionNotFoundError` for an unknown id.
 */
export interface SessionStore {
  /** Root directory. */
  readonly home: string;
  /** Directory of the logs (`<home>/sessions`). */
  readonly sessionsDir: string;
  /** Path of a session's log. Throws `InvalidSessionIdError` for a non-UUID. */
  pathOf(sessionId: string): string;
  /** A new UUIDv7 session; writes header + seed. `workspaceId` defaults to the git root above `cwd`. */
  create(options: {
    cwd: string;
    workspaceId?: string;
    seed?: readonly SessionEventDraft[];
  }): Promise<{ sessionId: string; header: SessionHeader; events: SessionEvent[] }>;
  /** One-shot append: open a writer, append, close. Throws `SessionBusyError` while a writer is open. */
  append(sessionId: string, drafts: readonly SessionEventDraft[]): Promise<SessionEvent[]>;
  /** Takes the lock (or throws `SessionBusyError`), replays once; see {@link SessionWriter}. */
  openWriter(sessionId: string): Promise<SessionWriter>;
  /** The header alone (line 1), validated. */
  readHeader(sessionId: string): Promise<SessionHeader>;
  /**
   * The session's own events with positions, in file order, starting at `fromOffset` (a line
   * start; `0` or absent: just after the header). Reads in chunks up to the size the file had
   * when iteration began. Schema-validated per line, not replayed. A final line without "\n"
   * throws `EventLogCorruptError` `TORN_TAIL` (after the whole lines before it were yielded); an
   * offset that is not a line start (or lies past the end, e.g. after a repair) throws
   * `TapedeckError` `INVALID_OFFSET`. Without `fromLine`, line numbers after `fromOffset` cost a
   * scan of the bytes before it.
   */
  read(
    sessionId: string,
    options?: {
      fromOffset?: number;
      /** The line number at `fromOffset`, when the caller knows it (saves counting lines). */
      fromLine?: number;
      /**
       * `"throw"` (default): final bytes without "\n" throw `TORN_TAIL`. `"stop"`: iteration ends
       * quietly at the last whole line — for an indexer that may race a live writer's current
       * line and will continue from the last `end` it saw.
       */
      tornTail?: "throw" | "stop";
    },
  ): AsyncIterable<ReadEvent>;
  /** Replay-validated Session; forks replay the parent prefix first (recursively). */
  readSession(sessionId: string): Promise<Session>;
  /** Replay, compactions applied, normalize; nothing written. A torn tail is repaired first. */
  resumeSession(sessionId: string): Promise<ResumedSession>;
  /** Every session with its header, oldest first by id. Damaged headers are skipped, not fatal. */
  list(): Promise<SessionListing[]>;
  /** Torn tail only; any other damage throws `EventLogCorruptError`. */
  repair(sessionId: string): Promise<RepairReport>;
  /** A child by reference (`header.parent`); O(1) bytes. Default `atSeq`: the parent's last seq. */
  fork(
    sessionId: string,
    options?: { atSeq?: number; cwd?: string },
  ): Promise<{ sessionId: string; header: SessionHeader; events: SessionEvent[] }>;
  /** Moves the log to `<home>/trash/`; refused (`SESSION_HAS_FORKS`) while forks reference it. */
  delete(sessionId: string): Promise<void>;
  /** The current lock holder, if any. */
  lockOwner(sessionId: string): Promise<LockOwner | undefined>;
}
