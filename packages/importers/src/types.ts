import type { SessionEventDraft } from "@tapedeck/session";

/** The tools `tapedeck import` reads. */
export const importSources = [
  "claude-code",
  "codex",
  "pi",
  "opencode",
  "gemini",
  "tapedeck",
] as const;
/** One of {@link importSources}. */
export type ImportSource = (typeof importSources)[number];

/** An event draft with the time it happened in the source (ISO-8601 UTC with milliseconds). */
export type TimedDraft = SessionEventDraft & { ts: string };

/** Bytes an import stores as a blob (an inline image), with their media type. */
export interface ImportedBlob {
  mediaType: string;
  data: Uint8Array;
}

/** A source line (or document) that was not imported, and why. */
export interface SkippedLine {
  /** The file it sits in. */
  path: string;
  /** 1-based line number (0 for a whole document, e.g. an opencode export). */
  line: number;
  /** Byte offset of the line's first byte (decompressed bytes for `.zst`). */
  offset: number;
  /** Short reason: `not JSON`, `truncated last line`, `line too long (52428800 bytes)`, … */
  reason: string;
}

/** Names one source session: the tool and the id it has there. */
export interface SourceKey {
  tool: ImportSource;
  /** The session's id in its tool (sub-agents and branches get a derived one, e.g. `ses#leaf`). */
  sessionId: string;
}

/**
 * One source session converted into Tapedeck events: the whole conversation from seq 1, in order.
 * Pure data; `importConverted` writes it.
 */
export interface ConvertedSession {
  key: SourceKey;
  /** The file it came from. */
  path: string;
  /** The session's working directory in the source (absolute). */
  cwd: string;
  /** When the source session began (ISO-8601). */
  createdAt: string;
  /** A title, when the source has one (searchable through the first prompt otherwise). */
  title?: string;
  /** Every event from seq 1; `seq` is the index + 1 (`sourceEventSeqs` and `replaces` use it). */
  events: TimedDraft[];
  /** The blobs the events' `attachments` name (hash → bytes), stored before the events are. */
  blobs?: ReadonlyMap<string, ImportedBlob>;
  /**
   * The source session this one branches from (pi's in-file branches, Codex `forked_from_id`):
   * written as a fork by reference of that session at the last turn boundary the two share.
   */
  forkOf?: SourceKey;
  /**
   * How the prefix shared with `forkOf` is found. Default: event for event (pi and Claude Code
   * branches share their trunk's run ids and times). `content`: ignoring times and run ids (a
   * Codex fork re-records its parent's history at the time of the fork); that prefix is written
   * as the parent's events.
   */
  forkMatch?: "content";
  /**
   * Set when the source may give entries ids they did not have before (pi rewrites a version-1
   * file as version 3, with a random `id` on every entry, which also names the runs): the
   * session's events then match the ones already imported with `entryId` and `runId` aside.
   */
  idsMayBeAdded?: true;
  /** The source session this one is a sub-agent of (Claude sidechains, opencode `parentID`). */
  parentOf?: SourceKey;
  /**
   * The tool call that started this sub-agent: the Tapedeck session imported from `parentOf`,
   * the call's seq there and its `callId` (the header's `spawnedBy`).
   */
  spawnedBy?: { sessionId: string; seq: number; callId: string };
  /** More provenance for the header's `origin` (a Tapedeck fork export's `parent`). */
  originFields?: Record<string, unknown>;
}

/** What converting one source file produced. */
export interface Conversion {
  sessions: ConvertedSession[];
  skipped: SkippedLine[];
  /** Entries read without error (including ones deliberately not imported). */
  entries: number;
}
