import type {
  BlobRef,
  EventLogCorruptError,
  LockOwner,
  Session,
  SessionEvent,
  SessionEventDraft,
  SessionHeader,
  SpawnedByRef,
  SurfaceItem,
} from "@tapedeck/session";
import type { ChangeCursor } from "./journal-format";
import type { StoreStorageKind } from "./storage-kinds";

/** When the store calls `fsync`. */
export type Durability =
  /** At every `turn/end` and before an approval waits for a person (default). */
  | "turn"
  /** After every appended event. */
  | "every-event";

/** Options of `SessionStore.compact`. */
export interface CompactOptions {
  /** Only a log whose last change is at least this old (ms); default 0. */
  olderThanMs?: number;
  /** Change nothing; report what would be done (`after`: the size it would have, compressed in memory). */
  dryRun?: boolean;
}

/** What `SessionStore.compact` did to one log. */
export interface CompactResult {
  sessionId: string;
  /** `compressed`; or why not: `recent`, `busy` (a writer holds it), `already-compressed`. */
  action: "compressed" | "recent" | "busy" | "already-compressed";
  /** Bytes of the plain log before, and of the compressed one after. */
  before: number;
  after: number;
}

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
  /** Size after which the change journal starts a new generation; default 4 MiB. */
  journalMaxBytes?: number;
  /**
   * Payloads (tool outputs, message contents, call arguments) of at least this many UTF-8 bytes
   * are written to the home's blob store, the log line keeping a reference; `Infinity` keeps
   * every payload inline. Default: `TAPEDECK_BLOB_THRESHOLD` (bytes, or `off`), else 64 KiB.
   */
  blobThreshold?: number;
}

/**
 * A byte offset inside a log that the store handed out (`ReadEvent.end`, `LogEntry.size`).
 * Offsets kept elsewhere (a database) come back through `logOffsetSchema`; `read` still checks
 * that an offset is a line start.
 */
export type LogOffset = number & { readonly __logOffset: true };

/** What `scan()` knows of one log without reading past its first line. */
interface LogEntryBase {
  sessionId: string;
  /** Size of the file in bytes. */
  size: LogOffset;
  /** Last modification time. */
  modifiedAt: Date;
  /** `modifiedAt` in milliseconds with sub-millisecond precision, for change detection. */
  modifiedMs: number;
  /** The file's inode: a log replaced by another file under the same name changes it. */
  inode: number;
  /**
   * The log is stored compressed (cold, `tapedeck storage compact`): `size` is still the plain
   * log's, and reads are transparent.
   */
  compressed?: boolean;
}

/** A log whose header line is valid. */
export interface HealthyLogEntry extends LogEntryBase {
  header: SessionHeader;
  /** Line 1 exactly as stored (without "\n"): identical text means the same log. */
  headerText: string;
  /** Offset just past line 1, where the events start. */
  headerEnd: LogOffset;
  headerError?: undefined;
}

/** A log whose header line is missing or damaged: listed so that tools can report it. */
export interface DamagedLogEntry extends LogEntryBase {
  header?: undefined;
  headerError: EventLogCorruptError;
}

/** One log as seen by `scan()` and `entry()`. */
export type LogEntry = HealthyLogEntry | DamagedLogEntry;

/** A name in the sessions folder that looks like a log but is not a regular file. */
export interface SkippedEntry {
  name: string;
  reason: string;
}

/** Every log of the folder, by session id. */
export interface ScanResult {
  logs: LogEntry[];
  /** Entries left out (symbolic links, directories, devices), also reported through `warn`. */
  skipped: SkippedEntry[];
}

/** Why `changesSince` scanned instead of answering from the journal. */
export type ChangeScanReason = "no-cursor" | "missing" | "damaged" | "rotated" | "behind";

/**
 * The answer of `changesSince`. `cursor` is what to pass next time (store it after the changes
 * were applied); `null` when the journal cannot be read at all (the next call scans again).
 */
export type ChangeSet =
  | {
      kind: "journal";
      cursor: ChangeCursor;
      /**
       * Sessions whose logs may have changed (appended, created, repaired, deleted) since the
       * cursor, sorted: the journal's records plus every session holding a lock file (a writer
       * that is still appending, or one that died). Ask `entry(id)` for each.
       */
      sessionIds: string[];
      /**
       * Set when the sessions folder itself changed since the cursor (a log created, renamed or
       * removed — perhaps by another program, which the journal cannot know): the ids of every
       * log now in the folder, from a directory listing. Ids missing from it are gone; ids a
       * reader does not know are new.
       */
      present?: string[];
    }
  | {
      kind: "scan";
      reason: ChangeScanReason;
      cursor: ChangeCursor | null;
      /** The whole folder, as `scan()` returns it: anything not in it is gone. */
      logs: LogEntry[];
      skipped: SkippedEntry[];
    };

/**
 * Reads lines of one log by position (search results), through one open descriptor. Over a cold
 * log the bytes are decompressed as they are asked for (never the whole log at once): a read
 * forward continues, a read behind the last one decompresses again from the start of the events;
 * a damaged `.zst` throws `COLD_LOG_CORRUPT`.
 */
export interface LogReader {
  /** `length` bytes at `offset`, or `null` when the file is shorter. */
  readAt(offset: number, length: number): Buffer | null;
  /**
   * Reads `length` bytes at `offset` into `target` from `targetOffset` (which must have room);
   * false when the file is shorter. For a reader of many lines that decodes them from one buffer
   * it owns: no buffer per read.
   */
  readInto(target: Uint8Array, targetOffset: number, offset: number, length: number): boolean;
  /**
   * `event` (parsed from a line read here) as readers see it: a payload its line keeps in a blob
   * (a reference and a preview) read back from the home's blob store, as `read` and
   * `readSession` do; any other event as it is.
   *
   * @throws EventLogCorruptError `BLOB_MISSING` / `BLOB_CORRUPT` naming the session and seq.
   */
  withPayload(event: SessionEvent): SessionEvent;
  close(): void;
}

/** One event as read from a file, with where it sits. */
export interface ReadEvent {
  event: SessionEvent;
  /** 1-based line number (the header is line 1). */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: LogOffset;
  /** Byte offset just past the line's "\n" (where a later `read` may continue). */
  end: LogOffset;
}

/** Options of an append. */
export interface AppendOptions {
  /**
   * Keep each draft's own `ts` (a valid time, normalised to ISO-8601 UTC with milliseconds)
   * instead of the clock's; a draft without one gets the clock's. For importers, whose events
   * happened before they are written. Default `false`: the store's clock wins.
   */
  keepTimestamps?: boolean;
}

/** Where an imported session came from: written into its header as `origin`. */
export interface SessionOrigin {
  /** The tool that wrote the source (`claude-code`, `codex`, `pi`, `opencode`, `tapedeck`). */
  tool: string;
  /** The session's id in that tool. */
  sessionId: string;
  /** The file it was read from. */
  path?: string;
}

/** Options of `create` and `fork` that only an importer needs. */
export interface ImportedHeaderOptions {
  /**
   * The new session's id (a lowercase UUID) instead of a fresh UUIDv7: lets an importer map one
   * source session to one Tapedeck session. Refused with `SESSION_EXISTS` (a `TapedeckError`)
   * when a log of that id exists; never overwrites.
   */
  sessionId?: string;
  /** `createdAt` of the header (an ISO-8601 time); default now. */
  createdAt?: string;
  /** `origin` of the header. */
  origin?: SessionOrigin;
  /**
   * `spawnedBy` of the header: the tool call of another session that started this one as a
   * sub-agent (format version 1, optional; see `architecture/session-log.md`).
   */
  spawnedBy?: SpawnedByRef;
  /**
   * `false`: write the new log without waiting for `fsync`; call `syncLogs` for a batch of them
   * afterwards (one concurrent flush instead of two waits per file). Default `true`.
   */
  durable?: boolean;
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
   * seq of the log's last event, appends included. Unlike `session.lastSeq` it never reads the
   * log: a writer continued from a kept tail knows it without.
   */
  readonly lastSeq: number;
  /**
   * `session`, read asynchronously when the writer was opened from a kept tail (a run calls it
   * before it needs the history, so the event loop runs while the log is read).
   */
  loadSession(): Promise<Session>;
  /**
   * Assigns `seq`/`ts`, validates each draft against the session, writes one `write()` per line,
   * and returns the complete events. All drafts are validated before any is written; an invalid
   * draft throws `EventLogCorruptError` and writes nothing.
   */
  append(drafts: readonly SessionEventDraft[], options?: AppendOptions): Promise<SessionEvent[]>;
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
  /**
   * A new UUIDv7 session; writes header + seed in one exclusive create. `workspaceId` defaults to
   * the git root above `cwd`. Importers may name the id, `createdAt`, `origin` and keep the seed's
   * timestamps (see {@link ImportedHeaderOptions}).
   */
  create(
    options: {
      cwd: string;
      workspaceId?: string;
      seed?: readonly SessionEventDraft[];
    } & ImportedHeaderOptions &
      AppendOptions,
  ): Promise<{ sessionId: string; header: SessionHeader; events: SessionEvent[] }>;
  /**
   * Adds a whole recorded log (header line + events, e.g. a demo or a copy from elsewhere) under
   * its own id, optionally filed under another `workspaceId`. Replayed first exactly as a read
   * would (a fork against its parent, which must be in this store); never overwrites: an existing
   * id is refused with `SESSION_EXISTS`.
   */
  adoptLog(
    text: string,
    options?: { workspaceId?: string },
  ): Promise<{ sessionId: string; header: SessionHeader }>;
  /**
   * Flushes the named logs and the sessions folder to disk, concurrently: what `create` with
   * `durable: false` left to do. Logs that no longer exist are ignored.
   */
  syncLogs(sessionIds: readonly string[]): Promise<void>;
  /** One-shot append: open a writer, append, close. Throws `SessionBusyError` while a writer is open. */
  append(
    sessionId: string,
    drafts: readonly SessionEventDraft[],
    options?: AppendOptions,
  ): Promise<SessionEvent[]>;
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
      fromOffset?: LogOffset;
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
  /**
   * Every log of the folder, sorted by id, from one open each (`O_NOFOLLOW`, `fstat`, line 1):
   * size, mtime, inode, and the header or the reason it is unreadable. Entries named like a log
   * that are not regular files are skipped with a warning. Costs O(sessions): readers that keep
   * state use `changesSince`.
   */
  scan(): Promise<ScanResult>;
  /** The ids of every log file (a directory listing, no file opened), sorted. */
  sessionIds(): Promise<string[]>;
  /** One log's catalog entry, or `null` when it does not exist (or is not a regular file). */
  entry(sessionId: string): LogEntry | null;
  /**
   * True when the folder holds something under the session's log name: one `access`, no file
   * opened (an import asks it for every source session). {@link entry} says whether it is a log.
   */
  hasLog(sessionId: string): boolean;
  /**
   * The sessions that may have changed since `cursor` (from an earlier `ChangeSet`), read from
   * the change journal in O(changes). Without a cursor, or when the journal is missing, damaged,
   * rotated or shorter than the cursor, it falls back to a full `scan()`. A reader that applies
   * every set it receives never misses an appended event: writers record the session before their
   * first append and after their last, and sessions with a lock file are always included.
   */
  changesSince(cursor?: string | null): Promise<ChangeSet>;
  /**
   * Calls `listener` soon after a log of the folder is created, appended to, renamed or removed
   * (by this process or another), with its session id (`null`: the platform did not say which).
   * A hint for long-running readers that want changes within milliseconds, never the truth: they
   * still ask `changesSince`, and keep polling it, since a watch can miss changes (network
   * filesystems) or stop. Returns the function that stops watching, or `null` when the folder
   * cannot be watched (not created yet, no watches left).
   */
  watch(listener: (sessionId: string | null) => void): (() => void) | null;
  /**
   * Records in the change journal that a log changed outside the store (a program that appended
   * to or replaced the file itself), so that readers following the journal look at it.
   */
  announceChange(sessionId: string): void;
  /** Opens a log for reads by position; `null` when it does not exist. */
  openLogReader(sessionId: string): LogReader | null;
  /** Torn tail only; any other damage throws `EventLogCorruptError`. */
  repair(sessionId: string): Promise<RepairReport>;
  /** A child by reference (`header.parent`); O(1) bytes. Default `atSeq`: the parent's last seq. */
  fork(
    sessionId: string,
    options?: { atSeq?: number; cwd?: string } & ImportedHeaderOptions,
  ): Promise<{ sessionId: string; header: SessionHeader; events: SessionEvent[] }>;
  /** Moves the log to `<home>/trash/`; refused (`SESSION_HAS_FORKS`) while forks reference it. */
  delete(sessionId: string): Promise<void>;
  /**
   * Stores the log compressed (`<id>.jsonl.zst`) when its last append is at least
   * `olderThanMs` old and no writer holds it; reads stay transparent and the next writer restores
   * the plain log. A log that does not replay whole is left as it is (throws its error).
   */
  compact(sessionId: string, options?: CompactOptions): Promise<CompactResult>;
  /**
   * The kinds of data the store keeps in the home (plain logs, compressed logs, blobs, trash),
   * each with its usage and reclaim; `tapedeck storage` lists them.
   */
  storageKinds(): StoreStorageKind[];
  /** Deletes the trash for good; returns what it held (`dryRun`: what it would free). */
  emptyTrash(options: { dryRun: boolean }): { bytes: number; files: number };
  /** The current lock holder, if any. */
  lockOwner(sessionId: string): Promise<LockOwner | undefined>;
  /**
   * Stores binary `data` (an image an importer found inline) in the home's blob store and returns
   * the reference an event's `attachments` holds. Durable (file and folder fsynced) before it
   * returns, unless `durable: false` (an import's: `syncLogs` fsyncs it before the logs).
   */
  putBlob(data: Uint8Array, options: { mediaType: string; durable?: boolean }): BlobRef;
  /**
   * The exact bytes of blob `hash`, checked against it.
   *
   * @throws BlobReadError `BLOB_MISSING` / `BLOB_CORRUPT`; InvalidBlobHashError for a name
   *   that is no sha256.
   */
  readBlob(hash: string): Buffer;
}
